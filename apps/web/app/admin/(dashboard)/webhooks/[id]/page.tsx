/**
 * One webhook endpoint and its delivery log (admins only). An id that is no endpoint's is the dashboard's 404
 * (../../not-found.tsx).
 */
import { WebhookEndpointId } from "@petstore/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AdminOnlyNotice } from "@/admin/shell";
import { EndpointPage } from "@/admin/webhooks/endpoint-page";
import { currentUser, requireRecord } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Webhook endpoint" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const [user, { id }] = await Promise.all([currentUser(), params]);
  if (!WebhookEndpointId.safeParse(id).success) notFound();
  if (user?.role !== "admin") return <AdminOnlyNotice />;
  await requireRecord("webhookEndpoint", id);
  return <EndpointPage id={id} />;
}
