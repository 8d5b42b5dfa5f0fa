/** Admins only: staff who reach this address see a notice instead. */
import type { Metadata } from "next";
import { AdminOnlyNotice } from "@/admin/shell";
import { WebhooksPage } from "@/admin/webhooks/webhooks-page";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Webhooks" };

export default async function Page() {
  const user = await currentUser();
  return user?.role === "admin" ? <WebhooksPage /> : <AdminOnlyNotice />;
}
