/** Admins only: staff who reach this address see a notice instead. */
import type { Metadata } from "next";
import { AdminOnlyNotice } from "@/admin/shell";
import { UsersPage } from "@/admin/users/users-page";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Users" };

export default async function Page() {
  const user = await currentUser();
  return user?.role === "admin" ? <UsersPage /> : <AdminOnlyNotice />;
}
