/**
 * Signed-in part of the dashboard: sends visitors without a live session to the sign-in page, and members of
 * consumer accounts to the developer portal.
 */
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AdminShell } from "@/admin/shell";
import { currentUser } from "@/server/trpc/page-auth";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect("/admin/sign-in");
  if (user.accountId) redirect("/portal");
  return <AdminShell user={user}>{children}</AdminShell>;
}
