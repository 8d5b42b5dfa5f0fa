/** One consumer account (admins only). An id that is no account's is the dashboard's 404 (../../not-found.tsx). */
import { AccountId } from "@petstore/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AccountDetailPage } from "@/admin/accounts/account-detail-page";
import { AdminOnlyNotice } from "@/admin/shell";
import { currentUser, requireRecord } from "@/server/trpc/page-auth";

export const metadata: Metadata = { title: "Account" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const [user, { id }] = await Promise.all([currentUser(), params]);
  if (!AccountId.safeParse(id).success) notFound();
  if (user?.role !== "admin") return <AdminOnlyNotice />;
  await requireRecord("account", id);
  return <AccountDetailPage id={id} />;
}
