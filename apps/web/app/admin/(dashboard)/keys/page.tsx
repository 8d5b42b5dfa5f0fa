/** Admins only: staff who reach this address see a notice instead. */
import type { Metadata } from "next";
import { KeysPage } from "@/admin/keys/keys-page";
import { AdminOnlyNotice } from "@/admin/shell";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "API keys" };

export default async function Page() {
  const user = await currentUser();
  return user?.role === "admin" ? <KeysPage /> : <AdminOnlyNotice />;
}
