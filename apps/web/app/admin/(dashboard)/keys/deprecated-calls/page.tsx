/** Admins only: staff who reach this address see a notice instead. */
import type { Metadata } from "next";
import { DeprecatedCallsPage } from "@/admin/keys/deprecated-calls-page";
import { AdminOnlyNotice } from "@/admin/shell";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Keys calling the deprecated getPet" };

export default async function Page() {
  const user = await currentUser();
  return user?.role === "admin" ? <DeprecatedCallsPage /> : <AdminOnlyNotice />;
}
