/** Accepting an invitation to a consumer account: open to anyone holding the link. */
import type { Metadata } from "next";
import { InvitationPage } from "@/portal/invitation-page";

export const metadata: Metadata = { title: "Accept your invitation" };
export const dynamic = "force-dynamic";

export default async function Page({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <InvitationPage token={token} />;
}
