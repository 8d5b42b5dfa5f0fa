"use client";
/** Every request of the account's keys in the last 7 days. */
import { useQuery } from "@tanstack/react-query";
import { PageHeader } from "@/ui/components/page";
import { useTRPC } from "@/ui/trpc";
import { RequestLog } from "@/ui/usage/request-log";

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
