/** The signed-in dashboard: visitors without a session go to sign in, members of consumer accounts to the portal. */
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { currentUser, signInAddress } from "@/server/next-child/page-auth";
import { Shell } from "@/ui/shell";

export const dynamic = "force-dynamic";

const LINKS = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/animals", label: "Animals" },
  { href: "/admin/categories", label: "Categories" },
  { href: "/admin/orders", label: "Orders" },
  { href: "/admin/keys", label: "API keys", adminOnly: true },
  { href: "/admin/accounts", label: "Accounts", adminOnly: true },
  { href: "/admin/plans", label: "Plans", adminOnly: true },
  { href: "/admin/users", label: "Users", adminOnly: true },
  { href: "/admin/webhooks", label: "Webhooks", adminOnly: true },
  { href: "/admin/audit", label: "Audit log", adminOnly: true },
  { href: "/admin/sessions", label: "Your sessions" },
];

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect(await signInAddress("/admin/sign-in"));
  if (user.accountId) redirect("/portal");
  return (
    <Shell
      user={user}
      product="Pet Store admin"
      home="/admin"
      signInPath="/admin/sign-in"
      nav="Dashboard"
      links={LINKS.filter((link) => !link.adminOnly || user.role === "admin")}
    >
      {children}
    </Shell>
  );
}
