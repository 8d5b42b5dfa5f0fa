"use client";
/**
 * A key's last 100 requests, newest first (docs/contract.md section 4, "Usage and analytics"): time, operation,
 * status (for a 429 what refused it), duration, the client IP (admins) and the request id, refreshed every few
 * seconds. A key used before the store last emptied says when it was last used instead of "No requests yet".
 */
import { Button, Code, Group, Table, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@/server/trpc/router";
import { SectionTitle, StateBadge, TableScroll } from "../components/page";
import { QueryState, type QueryStateProps } from "../components/query-state";
import { formatDateTime } from "../format";
import { useTRPC } from "../trpc";

const REFUSED_BY = {
  minute: "minute window",
  day: "day window",
  month: "monthly quota",
  ban: "ban",
} as const;

const statusColor = (status: number) =>
  status >= 500 ? "grape" : status === 429 ? "orange" : status >= 400 ? "yellow" : "teal";

type Row = RouterOutputs["apiKeys"]["recentRequests"][number];

export function RecentRequests({
  scope,
  keyId,
  lastUsedAt,
}: {
  scope: "admin" | "portal";
  keyId: string;
  lastUsedAt: string | null;
}) {
  const trpc = useTRPC();
  const admin = scope === "admin";
  const ofAdmin = useQuery({
    ...trpc.apiKeys.recentRequests.queryOptions({ id: keyId }),
    enabled: admin,
    refetchInterval: 10_000,
  });
  const ofPortal = useQuery({
    ...trpc.portal.keys.recentRequests.queryOptions({ id: keyId }),
    enabled: !admin,
    refetchInterval: 5_000,
  });
  const recent = admin ? ofAdmin : ofPortal;
  return (
    <section aria-labelledby="recent-heading">
      <Group justify="space-between" align="flex-end" mt="xl" mb="sm">
        <SectionTitle id="recent-heading" mb={0}>
          Recent requests
        </SectionTitle>
        <Button variant="default" size="xs" onClick={() => recent.refetch()}>
          Refresh
        </Button>
      </Group>
      <RecentRequestsTable query={recent} lastUsedAt={lastUsedAt} withClientIp={admin} />
    </section>
  );
}

function RecentRequestsTable({
  query,
  lastUsedAt,
  withClientIp = false,
}: {
  query: QueryStateProps<Row[]>["query"];
  lastUsedAt: string | null;
  withClientIp?: boolean;
}) {
  return (
    <QueryState
      query={query}
      errorTitle="Could not load the recent requests"
      isEmpty={(rows) => rows.length === 0}
      empty={
        lastUsedAt
          ? {
              title: "No recent requests kept",
              description: `This key was last used ${formatDateTime(lastUsedAt)}; the requests it makes from now on appear here within seconds.`,
            }
          : {
              title: "No requests yet",
              description: "Requests made with this key appear here within seconds.",
            }
      }
      skeletonRows={5}
    >
      {(rows) => (
        <TableScroll label="Recent requests table" minWidth={720}>
          <Table striped>
            <Table.Caption>The last {rows.length} requests made with this key, newest first.</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Operation</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th ta="right">Duration</Table.Th>
                {withClientIp ? <Table.Th>Client IP</Table.Th> : null}
                <Table.Th>Request id</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows
                .map((r, position) => ({ ...r, position }))
                .map((r) => (
                  // Request ids are the caller's own when sent, so they may repeat: the row's place keys it.
                  <Table.Tr key={r.position}>
                    <Table.Td>{formatDateTime(r.at)}</Table.Td>
                    <Table.Td>{r.operation}</Table.Td>
                    <Table.Td>
                      <StateBadge color={statusColor(r.status)}>{r.status}</StateBadge>
                      {r.refusedBy ? (
                        <Text span size="xs" c="dimmed" ml="xs">
                          {REFUSED_BY[r.refusedBy]}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td ta="right">{r.durationMs} ms</Table.Td>
                    {withClientIp ? (
                      <Table.Td>
                        <Text size="sm">{r.clientIp || "—"}</Text>
                      </Table.Td>
                    ) : null}
                    <Table.Td>
                      <Code>{r.requestId}</Code>
                    </Table.Td>
                  </Table.Tr>
                ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
    </QueryState>
  );
}
