/** One webhook endpoint and its delivery log (admins only). */
import type { Metadata } from "next";
import { AdminOnlyNotice } from "@/admin/shell";
import { EndpointPage } from "@/admin/webhooks/endpoint-page";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Webhook endpoint" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const [user, { id }] = await Promise.all([currentUser(), params]);
  return user?.role === "admin" ? <EndpointPage id={id} /> : <AdminOnlyNotice />;
}
