"use client";
/** An account's usage as its members see it on the portal's usage page (accounts.usage), for 7, 30 or 90 days. */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type UsageDays, UsageToolbar, UsageView } from "@/portal/usage-view";
import { QueryState } from "../components/query-state";
import { useTRPC } from "../trpc";
import type { AccountDetail } from "./account-meta";

export function AccountUsageSection({ account }: { account: Pick<AccountDetail, "id" | "plan" | "limits"> }) {
  const trpc = useTRPC();
  const [days, setDays] = useState<UsageDays>(30);
  const usage = useQuery({
    ...trpc.accounts.usage.queryOptions({ accountId: account.id, days }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  return (
    <>
      <UsageToolbar
        usage={usage.data}
        days={days}
        onDays={setDays}
        fileName={`account-${account.id}-usage`}
      />
      <QueryState query={usage} errorTitle="Could not load the usage" skeletonRows={6}>
        {(u) => (
          <UsageView
            usage={u}
            limits={{ plan: account.plan, ...account.limits }}
            scope="This account"
            keyHref={(id) => `/admin/keys/${id}`}
          />
        )}
      </QueryState>
    </>
  );
}
