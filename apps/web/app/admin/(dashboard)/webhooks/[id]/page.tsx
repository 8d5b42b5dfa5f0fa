import { WebhookEndpointId } from "@petstore/contracts";
import type { Metadata } from "next";
import { adminsOnly } from "@/admin/admins-only";
import { EndpointPage } from "@/ui/webhooks/endpoint-page";

export const metadata: Metadata = { title: "Webhook endpoint" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return adminsOnly(<EndpointPage id={id} />, { kind: "webhookEndpoint", id, schema: WebhookEndpointId });
}
