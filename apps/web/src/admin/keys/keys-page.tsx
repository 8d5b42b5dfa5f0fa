"use client";
/**
 * API keys (admins): a server-paged list searched by name or prefix, filtered and sorted in the URL
 * (use-keys-query.ts), with each key's usage figures and actions; "Issue key" shows the new secret once.
 */
import { Button, Code } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { ApiKeySearch } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { FilterBar, FilterSelect, PLAN_FILTER, SearchFilter } from "@/admin/components/filters";
import type { RouterOutputs } from "@/server/trpc/router";
import { type Column, QueryTable } from "@/ui/components/data-table";
import { Hint, PageHeader, RouteLink, StateBadge } from "@/ui/components/page";
import { formatDateTime, formatNumber, planLabel } from "@/ui/format";
import { KeyDialog } from "@/ui/keys/key-dialog";
import { RestrictedScopes } from "@/ui/keys/key-fields";
import { STATE_COLORS, STATE_LABELS } from "@/ui/keys/key-meta";
import { useTRPC } from "@/ui/trpc";
import { KeyActions } from "./key-actions";
import { useKeysQuery } from "./use-keys-query";

const STATE_FILTER = [
  { value: "", label: "Any state" },
  { value: "working", label: "Working (not revoked or expired)" },
  ...(["active", "expiring", "banned", "expired", "revoked"] as const).map((s) => ({
    value: s,
    label: STATE_LABELS[s],
  })),
];
const ACTIVITY_FILTER = [
  { value: "", label: "Any activity" },
  { value: "used7d", label: "Used in the last 7 days" },
  { value: "unused30d", label: "Not used for 30 days" },
  { value: "refused7d", label: "Refused with 429 in 7 days" },
  { value: "banned30d", label: "Banned in the last 30 days" },
];
const SORTS = [
  { value: "created", label: "Newest first (best match first)" },
  { value: "lastUsed", label: "Last used" },
  { value: "getPetCalls", label: "getPet calls (30 days)" },
  { value: "requestsToday", label: "Requests today" },
  { value: "requests7d", label: "Requests (7 days)" },
  { value: "requests30d", label: "Requests (30 days)" },
  { value: "rateLimited7d", label: "429s (7 days)" },
  { value: "bans30d", label: "Bans (30 days)" },
];

type Row = RouterOutputs["apiKeys"]["list"]["rows"][number];

/** The usage figures every row shows, each a right-aligned count: [column key, row field, header, phone label]. */
const USAGE_FIGURES = [
  ["today", "requestsToday", "Requests today", "Requests today (UTC)"],
  ["week", "requests7d", "Requests (7 days)", "Requests, last 7 days"],
  ["month", "requests30d", "Requests (30 days)", "Requests, last 30 days"],
  ["getPet", "getPetCalls30d", "getPet calls (30 days)", "Deprecated getPet calls, last 30 days"],
  ["refused", "rateLimited7d", "429s (7 days)", "Refused with 429, last 7 days"],
  ["bans", "bans30d", "Bans (30 days)", "Bans, last 30 days"],
] as const satisfies readonly (readonly [string, keyof Row, string, string])[];

const USAGE_COLUMNS: Column<Row>[] = USAGE_FIGURES.map(([key, field, header, label]) => ({
  key,
  header,
  label,
  align: "right",
  cell: (k: Row) => formatNumber(k[field]),
}));

/** Defined once, so that the rows are not drawn again when the page is. */
const COLUMNS: Column<Row>[] = [
  {
    key: "name",
    header: "Name",
    title: true,
    minWidth: 150,
    cell: (k) => (
      <>
        <RouteLink href={`/admin/keys/${k.id}`} fw={500}>
          {k.name}
        </RouteLink>
        <RestrictedScopes scopes={k.scopes} />
      </>
    ),
  },
  { key: "prefix", header: "Prefix", cell: (k) => <Code>{k.prefix}…</Code> },
  { key: "plan", header: "Plan", cell: (k) => planLabel(k.plan) },
  { key: "environment", header: "Environment", cell: (k) => k.environment },
  {
    key: "state",
    header: "State",
    minWidth: 110,
    cell: (k) => (
      <>
        <StateBadge color={STATE_COLORS[k.state]}>{k.state}</StateBadge>
        {k.leakedAt ? <StateBadge color="red">leaked</StateBadge> : null}
        {k.state === "expiring" && k.expiresAt ? (
          <Hint size="xs">until {formatDateTime(k.expiresAt)}</Hint>
        ) : null}
      </>
    ),
  },
  {
    key: "created",
    header: "Created",
    minWidth: 120,
    cell: (k) => formatDateTime(k.createdAt),
  },
  {
    key: "used",
    header: "Last used",
    cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"),
  },
  ...USAGE_COLUMNS,
];

const keyActions = (k: Row) => <KeyActions apiKey={k} />;

export function KeysPage() {
  const trpc = useTRPC();
  const [issuing, issue] = useDisclosure(false);
  const { view, input, filtered, filter, goTo } = useKeysQuery();
  const keys = useQuery({
    ...trpc.apiKeys.list.queryOptions(input),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let server-to-server clients call the public API."
        actions={<Button onClick={issue.open}>Issue key</Button>}
      />
      <FilterBar>
        <SearchFilter
          label="Search by name or prefix"
          placeholder="e.g. Acme or pet_test_Ab1"
          value={view.q}
          onChange={(q) => filter({ q })}
          schema={ApiKeySearch.shape.query}
        />
        <FilterSelect
          label="Plan"
          data={PLAN_FILTER}
          value={view.plan}
          onChange={(plan) => filter({ plan })}
          w={{ base: "47%", xs: 150 }}
        />
        <FilterSelect
          label="State"
          data={STATE_FILTER}
          value={view.state}
          onChange={(state) => filter({ state })}
          w={{ base: "47%", xs: 250 }}
        />
        <FilterSelect
          label="Activity"
          data={ACTIVITY_FILTER}
          value={view.activity}
          onChange={(activity) => filter({ activity })}
          w={{ base: "100%", xs: 250 }}
        />
        <FilterSelect
          label="Sort by"
          data={SORTS}
          value={view.sort}
          onChange={(sort) => filter({ sort: sort ?? "created" })}
          w={{ base: "100%", xs: 250 }}
        />
      </FilterBar>
      <QueryTable<Row>
        query={keys}
        errorTitle="Could not load the API keys"
        empty={{
          title: filtered ? "No keys match" : "No API keys",
          description: filtered
            ? "Try another name, plan, state or activity."
            : "Issue a key to let a client call the API.",
          action: filtered ? undefined : <Button onClick={issue.open}>Issue key</Button>,
        }}
        label="API keys table"
        rowKey={(k) => k.id}
        minWidth={1480}
        columns={COLUMNS}
        actions={keyActions}
        pager={{
          what: "Keys",
          page: input.page,
          pageSize: input.pageSize,
          onPage: goTo,
          onPageSize: (size) => filter({ size: size as typeof view.size }),
        }}
      />
      {issuing ? <KeyDialog scope="admin" onClose={issue.close} /> : null}
    </>
  );
}
