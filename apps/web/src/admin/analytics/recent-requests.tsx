"use client";
/**
 * A key's last 100 requests, newest first (docs/contract.md section 4, "Usage and analytics"): time, operation,
 * status (for a 429, what refused it: the minute window, the day window or a ban), duration, client IP and
 * request id (to find the request's log line). Refreshed every 10 s. The list comes from the recent-requests store,
 * which an in-memory store empties on restart: a key used before then has an empty list that says when it was last
 * used instead of "no requests yet". `RecentRequestsTable` shows the rows of any query of them (the developer
 * portal's, which leaves out the client IP).
 */
import { Badge, Code, Table, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@/server/trpc/router";
import { QueryState, type QueryStateProps } from "../components/query-state";
import { TableScroll } from "../components/table-scroll";
import { formatDateTime } from "../format";
import { useTRPC } from "../trpc";

const REFUSED_BY = { minute: "minute window", day: "day window", ban: "ban" } as const;

const statusColor = (status: number) =>
  status >= 500 ? "grape" : status === 429 ? "orange" : status >= 400 ? "yellow" : "teal";

type Row = RouterOutputs["apiKeys"]["recentRequests"][number];

export function RecentRequests({ keyId, lastUsedAt }: { keyId: string; lastUsedAt: string | null }) {
  const trpc = useTRPC();
  const recent = useQuery({
    ...trpc.apiKeys.recentRequests.queryOptions({ id: keyId }),
    refetchInterval: 10_000,
  });
  return <RecentRequestsTable query={recent} lastUsedAt={lastUsedAt} withClientIp />;
}

/** The table of a key's recent requests from `query`, with the loading, failure and empty states. */
export function RecentRequestsTable({
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
                      <Badge variant="light" color={statusColor(r.status)}>
                        {r.status}
                      </Badge>
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
