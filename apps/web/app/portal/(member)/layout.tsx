/** The signed-in portal: visitors without a session go to its sign-in page, staff to the admin dashboard. */
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { currentUser, signInAddress } from "@/server/next-child/page-auth";
import { Shell } from "@/ui/shell";

export const dynamic = "force-dynamic";

const LINKS = [
  // The account page also stands for its keys' pages.
  { href: "/portal", label: "Overview and keys", also: "/portal/keys/" },
  { href: "/portal/usage", label: "Usage" },
  { href: "/portal/requests", label: "Request log" },
  { href: "/portal/orders", label: "Orders" },
  { href: "/portal/webhooks", label: "Webhooks" },
];

export default async function MemberLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect(await signInAddress("/portal/sign-in"));
  if (!user.accountId) redirect("/admin");
  return (
    <Shell
      user={user}
      product="Pet Store developer portal"
      home="/portal"
      signInPath="/portal/sign-in"
      nav="Portal"
      links={LINKS}
    >
      {children}
    </Shell>
  );
}
