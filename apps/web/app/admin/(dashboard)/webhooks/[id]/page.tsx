/**
 * One webhook endpoint and its delivery log (admins only). An id that is not an endpoint id (a UUID) is the
 * dashboard's 404 (../../not-found.tsx); a well-formed id no endpoint has is told by the page (endpoint-page.tsx).
 */
import { WebhookEndpointId } from "@petstore/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AdminOnlyNotice } from "@/admin/shell";
import { EndpointPage } from "@/admin/webhooks/endpoint-page";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Webhook endpoint" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const [user, { id }] = await Promise.all([currentUser(), params]);
  if (!WebhookEndpointId.safeParse(id).success) notFound();
  return user?.role === "admin" ? <EndpointPage id={id} /> : <AdminOnlyNotice />;
}
