/** One webhook message with its deliveries and attempts (admins only). */
import type { Metadata } from "next";
import { AdminOnlyNotice } from "@/admin/shell";
import { MessagePage } from "@/admin/webhooks/message-page";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Webhook message" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const [user, { id }] = await Promise.all([currentUser(), params]);
  return user?.role === "admin" ? <MessagePage id={id} /> : <AdminOnlyNotice />;
}
