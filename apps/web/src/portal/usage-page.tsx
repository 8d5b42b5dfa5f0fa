"use client";
/**
 * The account's usage against the limits its keys share, for 7, 30 or 90 days (`?days=90`), with a CSV, and the
 * billing CSV of a month.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { parseAsNumberLiteral, useQueryState } from "nuqs";
import { PageHeader, SectionTitle } from "@/ui/components/page";
import { useTRPC } from "@/ui/trpc";
import { BillingExport } from "@/ui/usage/billing-export";
import { ChartHeadingLevel } from "@/ui/usage/traffic-charts";
import { USAGE_DAYS, UsageView } from "@/ui/usage/usage-view";

const daysParam = parseAsNumberLiteral(USAGE_DAYS).withDefault(30);

export function UsagePage() {
  const trpc = useTRPC();
  const [days, setDays] = useQueryState("days", daysParam.withOptions({ history: "replace" }));
  const account = useQuery(trpc.portal.account.queryOptions());
  const usage = useQuery({
    ...trpc.portal.usage.queryOptions({ days }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  return (
    <>
      <PageHeader
        title="Usage"
        description="Requests of every key of the account, against the limits the keys share. Times are UTC."
      />
      <ChartHeadingLevel value={2}>
        <UsageView
          query={usage}
          days={days}
          onDays={(d) => setDays(d === 30 ? null : d)}
          fileName="usage"
          limits={{
            plan: account.data?.plan ?? "",
            perMinute: account.data?.perMinute ?? null,
            perDay: account.data?.perDay ?? null,
          }}
          scope="Your account"
          keyHref={(id) => `/portal/keys/${id}`}
        />
      </ChartHeadingLevel>
      <SectionTitle mt="xl">Usage for billing</SectionTitle>
      <BillingExport />
    </>
  );
}
