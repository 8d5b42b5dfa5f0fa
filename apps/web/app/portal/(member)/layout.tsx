/**
 * Signed-in part of the developer portal: visitors without a live session go to its sign-in page, staff to the
 * admin dashboard.
 */
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { PortalShell } from "@/portal/shell";
import { currentUser } from "@/server/trpc/page-auth";

export const dynamic = "force-dynamic";

export default async function MemberLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect("/portal/sign-in");
  if (!user.accountId) redirect("/admin");
  return <PortalShell user={user}>{children}</PortalShell>;
}
