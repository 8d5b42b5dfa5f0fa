"use client";
/**
 * One webhook endpoint: its settings and state, the actions on it, and its delivery log (every attempt, newest
 * first, with its details), filtered by outcome and paged in the URL (`?outcome=failed&page=2`).
 */
import { Code, Group, Paper, SegmentedControl, SimpleGrid, Stack, Text } from "@mantine/core";
import { WebhookAttemptOutcome } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { parseAsInteger, parseAsStringLiteral, useQueryStates } from "nuqs";
import { QueryTable } from "../components/data-table";
import { Field, Hint, PageHeader, RouteLink, SectionTitle } from "../components/page";
import { QueryState } from "../components/query-state";
import { formatDateTime, formatDateTimeSeconds, formatNumber } from "../format";
import { hasCode } from "../trpc";
import { ATTEMPT_COLUMNS, type Attempt, AttemptDetails } from "./attempt-detail";
import { EndpointActions } from "./endpoint-actions";
import { useWebhookApi } from "./scope";
import { EndpointState, EventTypes, successRate } from "./webhooks-page";

const LOG_PAGE_SIZE = 25;
/** Polling: every 3 s while deliveries wait (a replayed period is being sent), else every 15 s. */
const LIVE_POLL_MS = 3000;
const IDLE_POLL_MS = 15_000;

const params = {
  outcome: parseAsStringLiteral(WebhookAttemptOutcome.options),
  page: parseAsInteger.withDefault(1),
};

export function EndpointPage({ id }: { id: string }) {
  const api = useWebhookApi();
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const endpoint = useQuery({
    ...api.procedures.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data?.pending ? LIVE_POLL_MS : IDLE_POLL_MS),
  });
  const interval = endpoint.data?.pending ? LIVE_POLL_MS : IDLE_POLL_MS;
  const input = {
    endpointId: id,
    page: Math.max(1, view.page),
    pageSize: LOG_PAGE_SIZE,
    ...(view.outcome ? { outcome: view.outcome } : {}),
  };
  const log = useQuery({
    ...api.procedures.deliveryLog.queryOptions(input),
    placeholderData: keepPreviousData,
    refetchInterval: interval,
  });

  // An endpoint nobody has: the dashboard's not-found notice alone, not one failure per part of the page.
  if (hasCode(endpoint.error, "NOT_FOUND")) return api.notFound;
  return (
    <>
      <RouteLink href={api.listHref} size="sm">
        ← All webhook endpoints
      </RouteLink>
      <QueryState query={endpoint} errorTitle="Could not load this endpoint" skeletonRows={3}>
        {(e) => (
          <>
            <PageHeader
              title={<span style={{ overflowWrap: "anywhere" }}>{e.url}</span>}
              description={e.description || undefined}
              actions={<EndpointActions endpoint={e} size="sm" afterDelete={api.listHref} />}
            />
            <Paper withBorder p="md" mb="lg">
              <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md">
                <Field label="State">
                  <EndpointState endpoint={e} />
                </Field>
                <Field label="Events">
                  <EventTypes types={e.eventTypes} />
                </Field>
                <Field label="Deliveries waiting">{formatNumber(e.pending)}</Field>
                <Field label="Delivered, last 7 days">{successRate(e)}</Field>
                <Field label="Created">
                  {formatDateTime(e.createdAt)}
                  <Hint size="xs">by {e.createdBy}</Hint>
                </Field>
                {e.previousSecretExpiresAt ? (
                  <Field label="Old secret also signs until">
                    {formatDateTime(e.previousSecretExpiresAt)}
                  </Field>
                ) : null}
              </SimpleGrid>
            </Paper>
          </>
        )}
      </QueryState>
      <Group justify="space-between" align="flex-end" mb="sm" gap="sm">
        <SectionTitle mb={0}>Delivery log</SectionTitle>
        <Stack gap={4}>
          <Text size="sm" fw={500} id="outcome-filter">
            Outcome
          </Text>
          <SegmentedControl
            aria-labelledby="outcome-filter"
            data={[
              { value: "", label: "All" },
              { value: "succeeded", label: "Succeeded" },
              { value: "failed", label: "Failed" },
            ]}
            value={view.outcome ?? ""}
            onChange={(v) => setView({ outcome: (v || null) as typeof view.outcome, page: null })}
          />
        </Stack>
      </Group>
      <QueryTable<Attempt>
        query={log}
        errorTitle="Could not load the delivery log"
        empty={{
          title: view.outcome ? `No ${view.outcome} attempts` : "Nothing delivered yet",
          description: view.outcome
            ? "Try another outcome."
            : "Attempts appear here as soon as an event the endpoint subscribes to happens, or after a test message.",
        }}
        label="Delivery log table"
        rowKey={(a) => a.id}
        minWidth={900}
        columns={[
          {
            key: "time",
            header: "Time",
            minWidth: 150,
            title: true,
            cell: (a) => formatDateTimeSeconds(a.startedAt),
          },
          {
            key: "event",
            header: "Event",
            minWidth: 200,
            cell: (a) => (
              <Stack gap={0} align="flex-start">
                <Code>{a.eventType}</Code>
                <RouteLink href={api.messageHref(a.messageId)} size="xs">
                  {a.messageId}
                </RouteLink>
              </Stack>
            ),
          },
          { key: "attempt", header: "Attempt", align: "right", cell: (a) => a.number },
          ...ATTEMPT_COLUMNS,
        ]}
        actions={(a) => <AttemptDetails attempt={a} />}
        pager={{
          what: "Attempts",
          page: input.page,
          pageSize: LOG_PAGE_SIZE,
          onPage: (page) => setView({ page }, { history: "push" }),
        }}
      />
    </>
  );
}
