import type { Metadata } from "next";
import { adminsOnly } from "@/admin/admins-only";
import { MessagePage } from "@/ui/webhooks/message-page";

export const metadata: Metadata = { title: "Webhook message" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  return adminsOnly(<MessagePage id={(await params).id} />);
}
