/** One webhook message with its deliveries to the account's endpoints. */
import type { Metadata } from "next";
import { PortalMessagePage } from "@/portal/webhook-pages";

export const metadata: Metadata = { title: "Webhook message" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <PortalMessagePage id={id} />;
}
