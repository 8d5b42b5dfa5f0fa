"use client";
/**
 * One API key: its settings and state, its lineage (the key it was rolled from and the one it was rolled to),
 * the actions on it, a link to its audit trail, any chosen day by hour (429s split by what refused them), and
 * charts of its last 30 days.
 */
import { Anchor, Badge, Code, Group, Paper, SimpleGrid, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { RecentRequests } from "../analytics/recent-requests";
import { TrafficCharts } from "../analytics/traffic-charts";
import { Field } from "../components/field";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { formatDateTime, formatNumber, planLabel } from "../format";
import { NotFoundNotice } from "../shell";
import { hasCode, useTRPC } from "../trpc";
import { DayByHour } from "./day-by-hour";
import { KeyActions } from "./key-actions";
import { STATE_COLORS } from "./key-meta";
import { ScopeBadges } from "./scopes-field";
import { UsageCharts } from "./usage-charts";

/** The consumer account a key belongs to, linked by its name. */
function AccountLink({ accountId }: { accountId: string }) {
  const trpc = useTRPC();
  const account = useQuery(trpc.accounts.get.queryOptions({ id: accountId }));
  return (
    <Anchor component={Link} href={`/admin/accounts/${accountId}`}>
      {account.data?.name ?? "Open the account"}
    </Anchor>
  );
}

/** A key of the same lineage (docs/contract.md section 2, "Roll"), linked by its prefix; a dash for none. */
function LineageLink({ link }: { link: { id: string; prefix: string } | null }) {
  if (!link) return "—";
  return (
    <Anchor component={Link} href={`/admin/keys/${link.id}`}>
      <Code>{link.prefix}…</Code>
    </Anchor>
  );
}

export function KeyDetailPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const key = useQuery(trpc.apiKeys.get.queryOptions({ id }));
  const usage = useQuery(trpc.apiKeys.usage.queryOptions({ id, days: 30 }));
  const traffic = useQuery({
    ...trpc.apiKeys.traffic.queryOptions({ id, days: 30 }),
    refetchInterval: 30_000,
  });

  // A key nobody has: the dashboard's not-found notice alone, not one failure per part of the page.
  if (hasCode(key.error, "NOT_FOUND")) return <NotFoundNotice />;
  return (
    <>
      <Group justify="space-between">
        <Anchor component={Link} href="/admin/keys" size="sm">
          ← All API keys
        </Anchor>
        <Anchor component={Link} href={`/admin/audit?entity=apiKey&id=${id}`} size="sm">
          Audit log of this key →
        </Anchor>
      </Group>
      <QueryState query={key} errorTitle="Could not load this key" skeletonRows={3}>
        {(k) => (
          <>
            <PageHeader
              title={
                <Group gap="sm" component="span">
                  {k.name}
                  <Badge variant="light" color={STATE_COLORS[k.state]} size="lg">
                    {k.state}
                  </Badge>
                </Group>
              }
              description={<Code>{k.prefix}…</Code>}
              actions={<KeyActions apiKey={k} size="sm" />}
            />
            <Paper withBorder p="md" mb="lg">
              <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md">
                <Field label="Plan">{planLabel(k.plan)}</Field>
                <Field label="Limits">
                  {formatNumber(k.effectivePerMinute)}/min · {formatNumber(k.effectivePerDay)}/day
                  {k.perMinute !== null ? " (custom)" : ""}
                </Field>
                <Field label="Scopes">
                  <ScopeBadges scopes={k.scopes} />
                </Field>
                <Field label="Environment">{k.environment}</Field>
                {k.accountId ? (
                  <Field label="Account">
                    <AccountLink accountId={k.accountId} />
                  </Field>
                ) : null}
                <Field label="Requests today">{formatNumber(k.requestsToday)}</Field>
                <Field label="Created">
                  {formatDateTime(k.createdAt)}
                  <Text size="xs" c="dimmed">
                    by {k.createdBy}
                  </Text>
                </Field>
                <Field label="Last used">{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"}</Field>
                <Field label="Expires">{k.expiresAt ? formatDateTime(k.expiresAt) : "Never"}</Field>
                {k.revokedAt ? <Field label="Revoked">{formatDateTime(k.revokedAt)}</Field> : null}
                {k.bannedUntil ? <Field label="Banned until">{formatDateTime(k.bannedUntil)}</Field> : null}
                <Field label="Rolled from">
                  <LineageLink link={k.rolledFrom} />
                </Field>
                <Field label="Rolled to">
                  <LineageLink link={k.rolledTo} />
                </Field>
              </SimpleGrid>
            </Paper>
          </>
        )}
      </QueryState>
      <Title order={2} size="h3" mb="sm">
        Usage by hour
      </Title>
      <DayByHour keyId={id} />
      <Title order={2} size="h3" mt="xl" mb="sm">
        Last 30 days
      </Title>
      <QueryState query={usage} errorTitle="Could not load the usage" skeletonRows={4}>
        {(days) => <UsageCharts days={days} />}
      </QueryState>
      <Title order={2} size="h3" mt="xl" mb="sm">
        Traffic
      </Title>
      <QueryState query={traffic} errorTitle="Could not load the traffic" skeletonRows={4}>
        {(t) => <TrafficCharts traffic={t} scope="This key" />}
      </QueryState>
      <Title order={2} size="h3" mt="xl" mb="sm">
        Recent requests
      </Title>
      <RecentRequests keyId={id} lastUsedAt={key.data?.lastUsedAt ?? null} />
    </>
  );
}
