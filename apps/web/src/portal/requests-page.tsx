"use client";
/** The portal's request log page: every request of the account's keys in the last 7 days. */
import { useQuery } from "@tanstack/react-query";
import { PageHeader } from "@/admin/components/page-header";
import { useTRPC } from "@/admin/trpc";
import { RequestLog } from "./request-log";

export function RequestsPage() {
  const trpc = useTRPC();
  const keys = useQuery(trpc.portal.keys.list.queryOptions());
  return (
    <>
      <PageHeader
        title="Request log"
        description="Every request made with a key of the account in the last 7 days, newest first, in your time zone."
      />
      <RequestLog keys={keys.data ?? []} />
    </>
  );
}
