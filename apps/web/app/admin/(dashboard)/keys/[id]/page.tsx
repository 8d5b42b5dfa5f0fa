/** One API key (admins only). An id that is no key's is the dashboard's 404 (../../not-found.tsx). */
import { ApiKeyId } from "@petstore/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { KeyDetailPage } from "@/admin/keys/key-detail-page";
import { AdminOnlyNotice } from "@/admin/shell";
import { currentUser, requireRecord } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "API key" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const [user, { id }] = await Promise.all([currentUser(), params]);
  if (!ApiKeyId.safeParse(id).success) notFound();
  if (user?.role !== "admin") return <AdminOnlyNotice />;
  await requireRecord("apiKey", id);
  return <KeyDetailPage id={id} />;
}
