"use client";
/**
 * One key of the member's account: its settings, state and usage, roll and revoke, and its recent requests (the
 * request a member just made shows here within seconds; refreshed every 5 s and on demand, the key's figures every
 * 10 s).
 */
import { Anchor, Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { RecentRequestsTable } from "@/admin/analytics/recent-requests";
import { Field } from "@/admin/components/field";
import { PageHeader } from "@/admin/components/page-header";
import { QueryState } from "@/admin/components/query-state";
import { formatDateTime, formatNumber, planLabel } from "@/admin/format";
import { STATE_COLORS, STATE_LABELS } from "@/admin/keys/key-meta";
import { ScopeBadges } from "@/admin/keys/scopes-field";
import { useTRPC } from "@/admin/trpc";
import { KeyButtons } from "./key-buttons";
import type { PortalKey } from "./portal-meta";

const BACK = (
  <Anchor component={Link} href="/portal" size="sm">
    ← Your account
  </Anchor>
);

export function KeyPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const keys = useQuery({ ...trpc.portal.keys.list.queryOptions(), refetchInterval: 10_000 });
  const key = keys.data?.find((k) => k.id === id);
  const suspended = useQuery(trpc.portal.account.queryOptions()).data?.state === "suspended";
  if (keys.isSuccess && !key) return <KeyNotFound />;
  return (
    <>
      {BACK}
      <QueryState query={keys} errorTitle="Could not load this key" skeletonRows={3}>
        {() => (key ? <KeySummary apiKey={key} suspended={suspended} /> : null)}
      </QueryState>
      <RecentRequests id={id} lastUsedAt={key?.lastUsedAt ?? null} />
    </>
  );
}

function KeySummary({ apiKey: k, suspended }: { apiKey: PortalKey; suspended: boolean }) {
  return (
    <>
      <PageHeader
        title={
          <Group gap="sm" component="span">
            {k.name}
            <Badge variant="light" color={STATE_COLORS[k.state]} size="lg">
              {STATE_LABELS[k.state]}
            </Badge>
          </Group>
        }
        description={<Code>{k.prefix}…</Code>}
        actions={<KeyButtons apiKey={k} suspended={suspended} size="sm" />}
      />
      <Paper withBorder p="md" mb="lg">
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md">
          <Field label="Plan">{planLabel(k.plan)}</Field>
          <Field label="Limits">
            {formatNumber(k.effectivePerMinute)}/min · {formatNumber(k.effectivePerDay)}/day
          </Field>
          <Field label="Scopes">
            <ScopeBadges scopes={k.scopes} />
          </Field>
          <Field label="Requests today">{formatNumber(k.requestsToday)}</Field>
          <Field label="Created">{formatDateTime(k.createdAt)}</Field>
          <Field label="Last used">{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"}</Field>
          <Field label="Expires">{k.expiresAt ? formatDateTime(k.expiresAt) : "Never"}</Field>
          {k.revokedAt ? <Field label="Revoked">{formatDateTime(k.revokedAt)}</Field> : null}
        </SimpleGrid>
      </Paper>
    </>
  );
}

function RecentRequests({ id, lastUsedAt }: { id: string; lastUsedAt: string | null }) {
  const trpc = useTRPC();
  const recent = useQuery({
    ...trpc.portal.keys.recentRequests.queryOptions({ id }),
    refetchInterval: 5_000,
  });
  return (
    <section aria-labelledby="recent-heading">
      <Group justify="space-between" align="flex-end" mt="xl" mb="sm">
        <Title order={2} size="h3" id="recent-heading">
          Recent requests
        </Title>
        <Button variant="default" size="xs" onClick={() => recent.refetch()}>
          Refresh
        </Button>
      </Group>
      <RecentRequestsTable query={recent} lastUsedAt={lastUsedAt} />
    </section>
  );
}

function KeyNotFound() {
  return (
    <Stack gap="sm" maw={520}>
      <Title order={1} size="h2">
        Key not found
      </Title>
      <Text size="sm">Your account has no API key at this address. It may have been mistyped.</Text>
      {BACK}
    </Stack>
  );
}
