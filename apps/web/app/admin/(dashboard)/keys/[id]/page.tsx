/** One API key (admins only). */
import type { Metadata } from "next";
import { KeyDetailPage } from "@/admin/keys/key-detail-page";
import { AdminOnlyNotice } from "@/admin/shell";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "API key" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const [user, { id }] = await Promise.all([currentUser(), params]);
  return user?.role === "admin" ? <KeyDetailPage id={id} /> : <AdminOnlyNotice />;
}
