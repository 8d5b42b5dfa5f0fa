import { ApiKeyId } from "@petstore/contracts";
import type { Metadata } from "next";
import { adminsOnly } from "@/admin/admins-only";
import { KeyDetailPage } from "@/admin/keys/key-detail-page";

export const metadata: Metadata = { title: "API key" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return adminsOnly(<KeyDetailPage id={id} />, { kind: "apiKey", id, schema: ApiKeyId });
}
