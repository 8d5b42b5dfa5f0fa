/** One key of the member's account; an address that names no key at all is a 404. */
import { ApiKeyId } from "@petstore/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { KeyPage } from "@/portal/key-page";

export const metadata: Metadata = { title: "API key" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!ApiKeyId.safeParse(id).success) notFound();
  return <KeyPage id={id} />;
}
