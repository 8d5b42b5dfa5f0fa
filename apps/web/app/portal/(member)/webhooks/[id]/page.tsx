/** One webhook endpoint of the account; an address that names no endpoint at all is a 404. */
import { WebhookEndpointId } from "@petstore/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PortalEndpointPage } from "@/portal/webhook-pages";

export const metadata: Metadata = { title: "Webhook endpoint" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!WebhookEndpointId.safeParse(id).success) notFound();
  return <PortalEndpointPage id={id} />;
}
