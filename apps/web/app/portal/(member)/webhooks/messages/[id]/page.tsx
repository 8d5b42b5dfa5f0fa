import type { Metadata } from "next";
import { MessagePage } from "@/ui/webhooks/message-page";

export const metadata: Metadata = { title: "Webhook message" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  return <MessagePage id={(await params).id} />;
}
