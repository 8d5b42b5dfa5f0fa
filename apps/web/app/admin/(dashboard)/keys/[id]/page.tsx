/**
 * One API key (admins only). An id that is not a key id (a UUID) is the dashboard's 404 (../../not-found.tsx);
 * a well-formed id no key has is told by the page itself (key-detail-page.tsx).
 */
import { ApiKeyId } from "@petstore/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { KeyDetailPage } from "@/admin/keys/key-detail-page";
import { AdminOnlyNotice } from "@/admin/shell";
import { currentUser } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "API key" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const [user, { id }] = await Promise.all([currentUser(), params]);
  if (!ApiKeyId.safeParse(id).success) notFound();
  return user?.role === "admin" ? <KeyDetailPage id={id} /> : <AdminOnlyNotice />;
}
