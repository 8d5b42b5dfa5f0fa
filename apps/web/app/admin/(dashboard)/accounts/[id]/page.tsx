import { AccountId } from "@petstore/contracts";
import type { Metadata } from "next";
import { AccountDetailPage } from "@/admin/accounts/account-detail-page";
import { adminsOnly } from "@/admin/admins-only";

export const metadata: Metadata = { title: "Account" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return adminsOnly(<AccountDetailPage id={id} />, { kind: "account", id, schema: AccountId });
}
