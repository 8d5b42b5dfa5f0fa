"use client";
/**
 * An account's request log (docs/contract.md section 7, "Usage and the request log"), newest first: time, method and
 * path, status with the error code, latency, the key's prefix and what the account's minute and day windows had
 * left (or what refused the request); an aggregate row says how many requests it counts and between which times.
 * Filters (key, status or class, operation, time range, `X-Request-Id`) live in the URL, folded behind a "Filters"
 * toggle on a phone so the log starts on the first screen; "Load more" pages on with
 * the answer's cursor. The portal shows the member's account (`portal.requestLog`), the admin's account page any
 * account (`accounts.requestLog`, with `accountId`).
 */
import { Badge, Button, Code, Group, Select, Stack, Text, TextInput } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { LoggedOperation } from "@petstore/contracts";
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";
import { type FormEvent, useId, useMemo, useState } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { DataTable } from "@/ui/components/data-table";
import { QueryState } from "@/ui/components/query-state";
import { formatDateTimeSeconds, formatNumber } from "@/ui/format";
import { useTRPC, useTRPCClient } from "@/ui/trpc";

type Entry = RouterOutputs["portal"]["requestLog"]["entries"][number];

const RANGES = [
  { value: "15m", label: "Last 15 minutes", ms: 15 * 60_000 },
  { value: "1h", label: "Last hour", ms: 3_600_000 },
  { value: "24h", label: "Last 24 hours", ms: 86_400_000 },
  { value: "7d", label: "Last 7 days", ms: 0 },
] as const;

const STATUSES = [
  { value: "2xx", label: "2xx success" },
  { value: "4xx", label: "4xx client error (incl. 429)" },
  { value: "5xx", label: "5xx server error" },
  ...[200, 201, 400, 401, 403, 404, 429, 500].map((s) => ({ value: String(s), label: String(s) })),
];

const REFUSED_BY: Record<string, string> = {
  minute: "minute window",
  day: "day window",
  month: "monthly quota",
  ban: "ban",
};

const params = {
  key: parseAsString,
  status: parseAsString,
  operation: parseAsStringLiteral(LoggedOperation.options),
  range: parseAsStringLiteral(RANGES.map((r) => r.value)).withDefault("7d"),
  requestId: parseAsString,
};

const statusColor = (status: number) =>
  status >= 500 ? "grape" : status === 429 ? "orange" : status >= 400 ? "yellow" : "teal";

/** `2xx` or `404` from the URL as the procedure takes it; anything else is no filter. */
function statusFilter(status: string | null): number | "2xx" | "4xx" | "5xx" | undefined {
  if (status === "2xx" || status === "4xx" || status === "5xx") return status;
  const n = Number(status);
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined;
}

function RateLimitState({ entry: e }: { entry: Entry }) {
  if (e.refusedBy)
    return (
      <Text size="sm" c="red.9">
        Refused by the {REFUSED_BY[e.refusedBy] ?? e.refusedBy}
      </Text>
    );
  if (e.minuteRemaining === null && e.dayRemaining === null)
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Text size="sm">
      {formatNumber(e.minuteRemaining)} left this minute · {formatNumber(e.dayRemaining)} today
    </Text>
  );
}

/**
 * What an aggregate row stands for: "1,234 requests refused with 429 between 12:00:01 and 12:00:05, not logged
 * one by one".
 */
function aggregateText(e: Entry, firstAt: string): string {
  const what = e.refusedBy ? `refused with ${e.status}` : `answered ${e.status}`;
  return `${formatNumber(e.requests)} requests ${what} between ${formatDateTimeSeconds(firstAt)} and ${formatDateTimeSeconds(e.at)}, counted together (not logged one by one)`;
}

/** The log's filters (from the URL) as the procedures' input. */
function useFilters() {
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const ms = RANGES.find((r) => r.value === view.range)?.ms ?? 0;
  // The range's start is fixed when it is chosen, so the query (and its pages) stay the same until then.
  // biome-ignore lint/correctness/useExhaustiveDependencies: recomputed only when the range changes
  const from = useMemo(() => (ms ? new Date(Date.now() - ms).toISOString() : undefined), [view.range]);
  const filter = {
    ...(view.key ? { keyId: view.key } : {}),
    ...(statusFilter(view.status) !== undefined ? { status: statusFilter(view.status) } : {}),
    ...(view.operation ? { operation: view.operation } : {}),
    ...(from ? { from } : {}),
    ...(view.requestId ? { requestId: view.requestId } : {}),
    limit: 50,
  };
  return { view, setView, filter };
}

/** The request log of the member's account, or with `accountId` of that account (admins). */
export function RequestLog({
  accountId,
  keys,
}: {
  accountId?: string;
  /** The account's keys, for the key filter. */
  keys: { id: string; name: string; prefix: string }[];
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const { view, setView, filter } = useFilters();
  // Pages are fetched with the plain client: the filter's schema is strict, and the infinite-query helpers would
  // add a `direction` to the input.
  const log = useInfiniteQuery({
    queryKey: accountId
      ? trpc.accounts.requestLog.infiniteQueryKey({ ...filter, accountId })
      : trpc.portal.requestLog.infiniteQueryKey(filter),
    queryFn: ({ pageParam }) => {
      const input = { ...filter, ...(pageParam ? { cursor: pageParam } : {}) };
      return accountId
        ? client.accounts.requestLog.query({ ...input, accountId })
        : client.portal.requestLog.query(input);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
  const [requestId, setRequestId] = useState(view.requestId ?? "");
  const find = (event: FormEvent) => {
    event.preventDefault();
    setView({ requestId: requestId.trim() || null });
  };
  const filtered = Boolean(
    view.key || view.status || view.operation || view.requestId || view.range !== "7d",
  );
  const active = [view.key, view.status, view.operation, view.requestId, view.range !== "7d"].filter(
    Boolean,
  ).length;
  const [unfolded, { toggle }] = useDisclosure(false);
  const filtersId = useId();
  return (
    <>
      <Group hiddenFrom="sm" mb="sm" gap="sm">
        <Button
          variant="default"
          size="xs"
          onClick={toggle}
          aria-expanded={unfolded}
          aria-controls={filtersId}
        >
          {unfolded ? "Hide filters" : "Filters"}
          {active ? ` (${active} on)` : ""}
        </Button>
        <Button variant="default" size="xs" onClick={() => log.refetch()} loading={log.isRefetching}>
          Refresh
        </Button>
      </Group>
      <Stack gap="sm" mb="md" id={filtersId} className={unfolded ? undefined : "phone-folded"}>
        <form onSubmit={find} aria-label="Find a request by its X-Request-Id">
          <Group align="flex-end" gap="sm">
            <TextInput
              label="Find by X-Request-Id"
              placeholder="The X-Request-Id of a response"
              value={requestId}
              onChange={(e) => setRequestId(e.currentTarget.value)}
              maxLength={200}
              w={{ base: "100%", xs: 360 }}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            />
            <Button type="submit" variant="default">
              Find
            </Button>
          </Group>
        </form>
        <Group align="flex-end" gap="sm">
          <Select
            label="Key"
            placeholder="Every key"
            data={keys.map((k) => ({ value: k.id, label: `${k.name} (${k.prefix}…)` }))}
            value={view.key}
            onChange={(v) => setView({ key: v })}
            clearable
            w={240}
          />
          <Select
            label="Status"
            placeholder="Any status"
            data={STATUSES}
            value={view.status}
            onChange={(v) => setView({ status: v })}
            clearable
            w={220}
          />
          <Select
            label="Operation"
            placeholder="Any operation"
            data={LoggedOperation.options.map((o) => ({
              value: o,
              label: o === "other" ? "other (none)" : o,
            }))}
            value={view.operation}
            onChange={(v) => setView({ operation: v as typeof view.operation })}
            clearable
            w={190}
          />
          <Select
            label="Time"
            data={RANGES.map(({ value, label }) => ({ value, label }))}
            value={view.range}
            onChange={(v) => setView({ range: (v as typeof view.range | null) ?? null })}
            allowDeselect={false}
            w={230}
          />
          <Button variant="default" onClick={() => log.refetch()} loading={log.isRefetching} visibleFrom="sm">
            Refresh
          </Button>
          {filtered ? (
            <Button
              variant="subtle"
              onClick={() => {
                setRequestId("");
                setView({ key: null, status: null, operation: null, range: null, requestId: null });
              }}
            >
              Clear filters
            </Button>
          ) : null}
        </Group>
      </Stack>
      <QueryState
        query={log}
        errorTitle="Could not load the request log"
        isEmpty={(d) => d.pages.every((p) => p.entries.length === 0)}
        empty={{
          title: filtered ? "No request matches" : "No requests yet",
          description: filtered
            ? "Try other filters. Requests appear here within about 5 seconds."
            : "Every request made with a key of the account in the last 7 days appears here within about 5 seconds.",
        }}
      >
        {(data) => (
          <>
            <DataTable<Entry>
              label="Request log table"
              rows={data.pages.flatMap((p) => p.entries)}
              rowKey={(e) => e.id}
              minWidth={1100}
              busy={log.isFetching && !log.isFetchingNextPage}
              columns={[
                {
                  key: "time",
                  header: "Time",
                  title: true,
                  minWidth: 160,
                  cell: (e) => formatDateTimeSeconds(e.at),
                },
                {
                  key: "request",
                  header: "Request",
                  minWidth: 240,
                  cell: (e) => (
                    <Stack gap={2}>
                      {e.firstAt ? (
                        <Text size="sm">{aggregateText(e, e.firstAt)}</Text>
                      ) : (
                        <Text size="sm" ff="monospace" style={{ overflowWrap: "anywhere" }}>
                          {e.method} {e.path}
                        </Text>
                      )}
                      <Text size="xs" c="dimmed">
                        {e.operation}
                      </Text>
                    </Stack>
                  ),
                },
                {
                  key: "status",
                  header: "Status",
                  minWidth: 120,
                  cell: (e) => (
                    <Stack gap={2} align="flex-start">
                      <Badge variant="light" color={statusColor(e.status)}>
                        {e.status}
                      </Badge>
                      {e.errorCode ? <Code fz="xs">{e.errorCode}</Code> : null}
                    </Stack>
                  ),
                },
                {
                  key: "latency",
                  header: "Latency",
                  align: "right",
                  cell: (e) =>
                    `${e.firstAt ? "mean " : ""}${formatNumber(Math.round(e.durationMs * 10) / 10)} ms`,
                },
                { key: "key", header: "Key", minWidth: 150, cell: (e) => <Code>{e.keyPrefix}…</Code> },
                {
                  key: "limits",
                  header: "Rate limit",
                  minWidth: 200,
                  cell: (e) => <RateLimitState entry={e} />,
                },
                {
                  key: "requestId",
                  header: "Request id",
                  minWidth: 200,
                  cell: (e) => (
                    <Text size="xs" ff="monospace" style={{ overflowWrap: "anywhere" }}>
                      {e.firstAt ? "—" : e.requestId}
                    </Text>
                  ),
                },
              ]}
            />
            {log.hasNextPage ? (
              <Group justify="center" mt="md">
                <Button
                  variant="default"
                  onClick={() => log.fetchNextPage()}
                  loading={log.isFetchingNextPage}
                >
                  Load more
                </Button>
              </Group>
            ) : null}
          </>
        )}
      </QueryState>
    </>
  );
}
