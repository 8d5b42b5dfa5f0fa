"use client";
/**
 * One API key: its settings, state and lineage (the key it was rolled from and to), its actions, a link to its audit
 * trail, a chosen day by hour, its last 30 days (traffic by outcome and operation, bans, deprecated getPet calls: one
 * set of charts) and its recent requests.
 */
import { Group } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Field, NotFoundNotice, RouteLink, SectionTitle } from "@/ui/components/page";
import { QueryState } from "@/ui/components/query-state";
import { formatDateTime } from "@/ui/format";
import { KeySummary } from "@/ui/keys/key-summary";
import { LineageLink } from "@/ui/keys/lineage-link";
import { RecentRequests } from "@/ui/keys/recent-requests";
import { hasCode, useTRPC } from "@/ui/trpc";
import { MonthQuotaProgress } from "@/ui/usage/month-quota";
import { TrafficCharts } from "@/ui/usage/traffic-charts";
import { DayByHour } from "./day-by-hour";
import { KeyActions } from "./key-actions";
import { UsageCharts } from "./usage-charts";

/** The consumer account a key belongs to, linked by its name. */
function AccountLink({ accountId }: { accountId: string }) {
  const trpc = useTRPC();
  const account = useQuery(trpc.accounts.get.queryOptions({ id: accountId }));
  return (
    <RouteLink href={`/admin/accounts/${accountId}`}>{account.data?.name ?? "Open the account"}</RouteLink>
  );
}

export function KeyDetailPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const key = useQuery(trpc.apiKeys.get.queryOptions({ id }));
  const usage = useQuery(trpc.apiKeys.usage.queryOptions({ id, days: 30 }));
  const quota = useQuery(trpc.apiKeys.monthQuota.queryOptions({ id }));
  const traffic = useQuery({
    ...trpc.apiKeys.traffic.queryOptions({ id, days: 30 }),
    refetchInterval: 30_000,
  });

  // A key nobody has: the dashboard's not-found notice alone, not one failure per part of the page.
  if (hasCode(key.error, "NOT_FOUND")) return <NotFoundNotice />;
  return (
    <>
      <Group justify="space-between">
        <RouteLink href="/admin/keys" size="sm">
          ← All API keys
        </RouteLink>
        <RouteLink href={`/admin/audit?entity=apiKey&id=${id}`} size="sm">
          Audit log of this key →
        </RouteLink>
      </Group>
      <QueryState query={key} errorTitle="Could not load this key" skeletonRows={3}>
        {(k) => (
          <KeySummary
            apiKey={k}
            actions={<KeyActions apiKey={k} size="sm" />}
            more={
              <>
                <Field label="Environment">{k.environment}</Field>
                {k.accountId ? (
                  <Field label="Account">
                    <AccountLink accountId={k.accountId} />
                  </Field>
                ) : null}
                {k.bannedUntil ? <Field label="Banned until">{formatDateTime(k.bannedUntil)}</Field> : null}
                <Field label="Rolled from">
                  <LineageLink link={k.rolledFrom} base="/admin/keys" relation="from" />
                </Field>
                <Field label="Rolled to">
                  <LineageLink link={k.rolledTo} base="/admin/keys" relation="to" />
                </Field>
              </>
            }
          />
        )}
      </QueryState>
      <SectionTitle>Monthly quota</SectionTitle>
      <QueryState query={quota} errorTitle="Could not read the monthly quota" skeletonRows={1}>
        {(q) => <MonthQuotaProgress quota={q} whose={key.data?.accountId ? "the account's" : "this key's"} />}
      </QueryState>
      <SectionTitle mt="xl">Usage by hour</SectionTitle>
      <DayByHour keyId={id} />
      <SectionTitle mt="xl">Last 30 days</SectionTitle>
      <QueryState query={traffic} errorTitle="Could not load the traffic" skeletonRows={4}>
        {(t) => <TrafficCharts traffic={t} scope="This key" />}
      </QueryState>
      <QueryState query={usage} errorTitle="Could not load the bans and deprecated calls" skeletonRows={2}>
        {(days) => <UsageCharts days={days} />}
      </QueryState>
      <RecentRequests scope="admin" keyId={id} lastUsedAt={key.data?.lastUsedAt ?? null} />
    </>
  );
}
