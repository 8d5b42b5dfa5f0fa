"use client";
/**
 * One webhook message: its type, webhook-id, time and body as sent, and per endpoint it was queued for, the
 * delivery's state with every attempt and a button that sends it again with the same webhook-id.
 */
import { Button, Card, Code, Group, Paper, SimpleGrid, Stack } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@/server/trpc/router";
import { DataTable } from "../components/data-table";
import { Field, Hint, PageHeader, RouteLink, SectionTitle, StateBadge } from "../components/page";
import { QueryState } from "../components/query-state";
import { useNotifiedMutation } from "../feedback";
import { formatDateTime, formatDateTimeSeconds, formatNumber } from "../format";
import { useTRPC } from "../trpc";
import { ATTEMPT_COLUMNS, AttemptDetails } from "./attempt-detail";
import { DELIVERY_STATE_COLORS, useWebhookApi } from "./scope";

type Message = RouterOutputs["webhooks"]["message"];
type Delivery = Message["deliveries"][number];
type Attempt = Delivery["attemptLog"][number];

function DeliveryCard({ messageId, delivery }: { messageId: string; delivery: Delivery }) {
  const trpc = useTRPC();
  const api = useWebhookApi();
  const notified = {
    invalidate: api.invalidate,
    success: (r: { queued: boolean | number }) =>
      r.queued
        ? `The message will be sent again to ${delivery.url}.`
        : "The message is being sent right now.",
    failure: "Could not replay the message",
  };
  const adminReplay = useNotifiedMutation(trpc.webhooks.replayMessage.mutationOptions(), notified);
  const portalReplay = useNotifiedMutation(trpc.portal.webhooks.replayMessage.mutationOptions(), notified);
  const replay = api.scope === "portal" ? portalReplay : adminReplay;
  return (
    <Card withBorder padding="md" component="section" aria-label={`Delivery to ${delivery.url}`}>
      <Group justify="space-between" align="flex-start" mb="sm" gap="sm">
        <Stack gap={4}>
          <RouteLink
            href={api.endpointHref(delivery.endpointId)}
            fw={500}
            style={{ overflowWrap: "anywhere" }}
          >
            {delivery.url}
          </RouteLink>
          <Group gap="xs">
            <StateBadge color={DELIVERY_STATE_COLORS[delivery.state]}>{delivery.state}</StateBadge>
            <Hint size="xs">
              {formatNumber(delivery.attempts)} attempt{delivery.attempts === 1 ? "" : "s"}
              {delivery.nextAttemptAt ? ` · next ${formatDateTime(delivery.nextAttemptAt)}` : ""}
            </Hint>
          </Group>
        </Stack>
        <Button
          size="xs"
          variant="light"
          loading={replay.isPending}
          onClick={() => replay.mutate({ messageId, endpointId: delivery.endpointId })}
          aria-label={`Replay to ${delivery.url}`}
        >
          Replay
        </Button>
      </Group>
      {delivery.attemptLog.length ? (
        <DataTable<Attempt>
          label={`Attempts to ${delivery.url}`}
          rows={delivery.attemptLog}
          rowKey={(a) => a.id}
          minWidth={700}
          columns={[
            { key: "attempt", header: "Attempt", title: true, cell: (a) => `#${a.number}` },
            { key: "time", header: "Time", minWidth: 150, cell: (a) => formatDateTimeSeconds(a.startedAt) },
            ...ATTEMPT_COLUMNS,
          ]}
          actions={(a) => <AttemptDetails attempt={a} />}
        />
      ) : (
        <Hint>No attempt yet.</Hint>
      )}
    </Card>
  );
}

/**
 * The page asks again every second while an attempt is on its way (after a replay, or a retry due within a minute),
 * else every 10 s. An attempt underway moves `nextAttemptAt` past its longest duration (a lease, 35 s by default),
 * so "due within a minute" covers it.
 */
const LIVE_POLL_MS = 1000;
const IDLE_POLL_MS = 10_000;
const DUE_WINDOW_MS = 60_000;

function attemptOnItsWay(m: Message | undefined, now: number): boolean {
  return Boolean(
    m?.deliveries.some(
      (d) =>
        d.state === "pending" &&
        (d.nextAttemptAt === null || new Date(d.nextAttemptAt).getTime() - now < DUE_WINDOW_MS),
    ),
  );
}

export function MessagePage({ id }: { id: string }) {
  const api = useWebhookApi();
  const message = useQuery({
    ...api.procedures.message.queryOptions({ id }),
    refetchInterval: (q) => (attemptOnItsWay(q.state.data, Date.now()) ? LIVE_POLL_MS : IDLE_POLL_MS),
  });
  return (
    <>
      <RouteLink href={api.listHref} size="sm">
        ← All webhook endpoints
      </RouteLink>
      <QueryState query={message} errorTitle="Could not load this message" skeletonRows={4}>
        {(m) => (
          <>
            <PageHeader title={<Code fz="inherit">{m.type}</Code>} description="A webhook message" />
            <Paper withBorder p="md" mb="lg">
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md" mb="md">
                <Field label="webhook-id">
                  <Code>{m.id}</Code>
                </Field>
                <Field label="Occurred">{formatDateTimeSeconds(m.occurredAt)}</Field>
                <Field label="Endpoints">{formatNumber(m.deliveries.length)}</Field>
              </SimpleGrid>
              <Field label="Body">
                <Code block style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                  {JSON.stringify(JSON.parse(m.body), null, 2)}
                </Code>
              </Field>
            </Paper>
            <SectionTitle>Deliveries</SectionTitle>
            {m.deliveries.length ? (
              <Stack gap="md">
                {m.deliveries.map((d) => (
                  <DeliveryCard key={d.endpointId} messageId={m.id} delivery={d} />
                ))}
              </Stack>
            ) : (
              <Hint>No endpoint was subscribed to this event when it happened.</Hint>
            )}
          </>
        )}
      </QueryState>
    </>
  );
}
