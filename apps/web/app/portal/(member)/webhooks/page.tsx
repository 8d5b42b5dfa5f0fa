/** The account's webhook endpoints. */
import type { Metadata } from "next";
import { PortalWebhooksPage } from "@/portal/webhook-pages";

export const metadata: Metadata = { title: "Webhooks" };

export default function Page() {
  return <PortalWebhooksPage />;
}
