/** Admins only: staff who reach this address see a notice instead. */
import type { Metadata } from "next";
import { AccountsPage } from "@/admin/accounts/accounts-page";
import { AdminOnlyNotice } from "@/admin/shell";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Accounts" };

export default async function Page() {
  const user = await currentUser();
  return user?.role === "admin" ? <AccountsPage /> : <AdminOnlyNotice />;
}
