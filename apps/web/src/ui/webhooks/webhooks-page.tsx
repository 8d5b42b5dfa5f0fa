"use client";
/**
 * Webhook endpoints (docs/contract.md section 6): each with its events, state (and why it is disabled), deliveries
 * waiting and success rate; add one (its secret shown once) and the actions on each.
 */
import { Button, Code, Group, Stack } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@/server/trpc/router";
import { QueryTable } from "../components/data-table";
import { Hint, PageHeader, RouteLink, StateBadge } from "../components/page";
import { formatDateTime, formatNumber } from "../format";
import { EndpointActions, EndpointDialog } from "./endpoint-actions";
import { useWebhookApi } from "./scope";

type Row = RouterOutputs["webhooks"]["list"][number];

/** Enabled, or disabled with the reason under it. */
export function EndpointState({
  endpoint,
}: {
  endpoint: Pick<Row, "enabled" | "disabledReason" | "failingSince">;
}) {
  return (
    <Stack gap={2}>
      <StateBadge color={endpoint.enabled ? (endpoint.failingSince ? "orange" : "teal") : "gray"}>
        {endpoint.enabled ? (endpoint.failingSince ? "failing" : "enabled") : "disabled"}
      </StateBadge>
      {!endpoint.enabled && endpoint.disabledReason ? (
        <Hint size="xs">{endpoint.disabledReason}</Hint>
      ) : endpoint.failingSince ? (
        <Hint size="xs">failing since {formatDateTime(endpoint.failingSince)}</Hint>
      ) : null}
    </Stack>
  );
}

export function EventTypes({ types }: { types: string[] }) {
  return (
    <Group gap={4}>
      {types.map((t) => (
        <Code key={t}>{t}</Code>
      ))}
    </Group>
  );
}

/** `98% of 50`: the share of the last 7 days' attempts that succeeded, or a dash without any. */
export const successRate = (e: Pick<Row, "attempts7d" | "succeeded7d">) =>
  e.attempts7d === 0
    ? "—"
    : `${Math.floor((e.succeeded7d / e.attempts7d) * 100)}% of ${formatNumber(e.attempts7d)}`;

export function WebhooksPage() {
  const api = useWebhookApi();
  const [adding, add] = useDisclosure(false);
  const endpoints = useQuery({ ...api.procedures.list.queryOptions(), refetchInterval: 15_000 });
  const addButton = <Button onClick={add.open}>Add endpoint</Button>;
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints that receive signed events when animals or categories change."
        actions={addButton}
      />
      <QueryTable<Row>
        query={endpoints}
        errorTitle="Could not load the webhook endpoints"
        empty={{
          title: "No webhook endpoints",
          description: "Add an endpoint to have events pushed to it instead of polling the API.",
          action: addButton,
        }}
        label="Webhook endpoints table"
        rowKey={(e) => e.id}
        minWidth={1080}
        columns={[
          {
            key: "url",
            header: "URL",
            title: true,
            minWidth: 220,
            cell: (e) => (
              <Stack gap={2}>
                <RouteLink href={api.endpointHref(e.id)} fw={500} style={{ overflowWrap: "anywhere" }}>
                  {e.url}
                </RouteLink>
                {e.description ? <Hint size="xs">{e.description}</Hint> : null}
              </Stack>
            ),
          },
          {
            key: "events",
            header: "Events",
            minWidth: 200,
            cell: (e) => <EventTypes types={e.eventTypes} />,
          },
          { key: "state", header: "State", minWidth: 140, cell: (e) => <EndpointState endpoint={e} /> },
          {
            key: "pending",
            header: "Waiting",
            label: "Deliveries waiting",
            align: "right",
            cell: (e) => formatNumber(e.pending),
          },
          {
            key: "success",
            header: "Success (7 days)",
            label: "Delivered in the last 7 days",
            align: "right",
            cell: (e) => successRate(e),
          },
          { key: "created", header: "Created", minWidth: 120, cell: (e) => formatDateTime(e.createdAt) },
        ]}
        actions={(e) => <EndpointActions endpoint={e} />}
      />
      {adding ? <EndpointDialog onClose={add.close} /> : null}
    </>
  );
}
