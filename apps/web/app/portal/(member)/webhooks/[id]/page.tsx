/** One endpoint of the account; an address that names no endpoint at all is a 404. */
import { WebhookEndpointId } from "@petstore/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EndpointPage } from "@/ui/webhooks/endpoint-page";

export const metadata: Metadata = { title: "Webhook endpoint" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!WebhookEndpointId.safeParse(id).success) notFound();
  return <EndpointPage id={id} />;
}
