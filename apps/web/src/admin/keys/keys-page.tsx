"use client";
/**
 * API keys (admins): a server-paged list searched by name or prefix, filtered and sorted in the URL
 * (use-keys-query.ts), with each key's usage figures and actions; "Issue key" shows the new secret once.
 */
import { Button } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { ApiKeySearch, type ApiKeySort } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { FilterBar, FilterSelect, PLAN_FILTER, SearchFilter } from "@/admin/components/filters";
import { PhoneSort, sortHeaders } from "@/admin/components/sort";
import type { RouterOutputs } from "@/server/trpc/router";
import { type Column, QueryTable } from "@/ui/components/data-table";
import { Hint, PageHeader, RouteLink, StateBadge } from "@/ui/components/page";
import { formatDate, formatDateTime, formatNumber, planLabel } from "@/ui/format";
import { KeyDialog } from "@/ui/keys/key-dialog";
import { RestrictedScopes } from "@/ui/keys/key-fields";
import { STATE_COLORS, STATE_LABELS } from "@/ui/keys/key-meta";
import { KeyPrefix } from "@/ui/keys/key-prefix";
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
/** The sortable columns' headers (every sort is most or newest first), by sort. */
const SORTABLE: Record<ApiKeySort, string> = {
  created: "Created",
  lastUsed: "Last used",
  requestsToday: "Today",
  requests7d: "7 days",
  requests30d: "30 days",
  getPetCalls: "getPet, 30 days",
  rateLimited7d: "429s, 7 days",
  bans30d: "Bans, 30 days",
};

/** The phones' "Sort by" choices. */
const PHONE_SORTS: { value: `${ApiKeySort}-desc`; label: string }[] = [
  { value: "created-desc", label: "Newest first" },
  { value: "lastUsed-desc", label: "Last used" },
  { value: "requestsToday-desc", label: "Most requests today" },
  { value: "requests7d-desc", label: "Most requests, 7 days" },
  { value: "requests30d-desc", label: "Most requests, 30 days" },
  { value: "getPetCalls-desc", label: "Most getPet calls" },
  { value: "rateLimited7d-desc", label: "Most 429s, 7 days" },
  { value: "bans30d-desc", label: "Most bans, 30 days" },
];

type Row = RouterOutputs["apiKeys"]["list"]["rows"][number];

/**
 * The usage figures every row shows, each a right-aligned count: [sort and column key, row field, label on the
 * phone's lines]. Requests are those that reached the API; 429s are counted apart (docs/contract.md section 4).
 */
const USAGE_FIGURES = [
  ["requestsToday", "requestsToday", "Requests today (UTC)"],
  ["requests7d", "requests7d", "Requests, last 7 days"],
  ["requests30d", "requests30d", "Requests, last 30 days"],
  ["getPetCalls", "getPetCalls30d", "Deprecated getPet calls, last 30 days"],
  ["rateLimited7d", "rateLimited7d", "Refused with 429, last 7 days"],
  ["bans30d", "bans30d", "Bans, last 30 days"],
] as const satisfies readonly (readonly [ApiKeySort, keyof Row, string])[];

const USAGE_COLUMNS: Column<Row>[] = USAGE_FIGURES.map(([key, field, label]) => ({
  key,
  header: SORTABLE[key],
  label,
  align: "right",
  desktopOnly: true,
  cell: (k: Row) => formatNumber(k[field]),
}));

const planAndEnvironment = (k: Row) => `${planLabel(k.plan)} · ${k.environment}`;

const stateCell = (k: Row) => (
  <>
    <StateBadge color={STATE_COLORS[k.state]}>{k.state}</StateBadge>
    {k.leakedAt ? <StateBadge color="red">leaked</StateBadge> : null}
    {k.state === "expiring" && k.expiresAt ? (
      <Hint size="xs">until {formatDateTime(k.expiresAt)}</Hint>
    ) : null}
  </>
);

/**
 * Defined once, so that the rows are not drawn again when the page is. At 1440 px the table fits without
 * scrolling; a phone card is the name and three lines (the key, its state and last use, its figures).
 */
const COLUMNS: Column<Row>[] = [
  {
    key: "name",
    header: "Name",
    title: true,
    minWidth: 140,
    cell: (k) => (
      <>
        <RouteLink href={`/admin/keys/${k.id}`} fw={500}>
          {k.name}
        </RouteLink>
        <RestrictedScopes scopes={k.scopes} />
      </>
    ),
  },
  {
    key: "prefix",
    header: "Key",
    desktopOnly: true,
    cell: (k) => (
      <>
        <KeyPrefix prefix={k.prefix} />
        <Hint size="xs" style={{ whiteSpace: "nowrap" }}>
          {planAndEnvironment(k)}
        </Hint>
      </>
    ),
  },
  { key: "state", header: "State", minWidth: 100, desktopOnly: true, cell: stateCell },
  { key: "created", header: "Created", desktopOnly: true, cell: (k) => formatDate(k.createdAt) },
  {
    key: "lastUsed",
    header: "Last used",
    desktopOnly: true,
    cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"),
  },
  ...USAGE_COLUMNS,
  {
    key: "phoneKey",
    header: "Key",
    phoneOnly: true,
    cell: (k) => (
      <>
        <KeyPrefix prefix={k.prefix} /> {planAndEnvironment(k)}{" "}
        <StateBadge color={STATE_COLORS[k.state]}>{k.state}</StateBadge>
        {k.leakedAt ? <StateBadge color="red">leaked</StateBadge> : null}
      </>
    ),
  },
  {
    key: "phoneUsed",
    header: "Last used",
    phoneOnly: true,
    cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"),
  },
  {
    key: "phoneRequests",
    header: "Requests today · 30 days",
    phoneOnly: true,
    cell: (k) => `${formatNumber(k.requestsToday)} · ${formatNumber(k.requests30d)}`,
  },
  {
    key: "phoneRefusals",
    header: "getPet 30 d · 429s 7 d · bans",
    phoneOnly: true,
    cell: (k) => [k.getPetCalls30d, k.rateLimited7d, k.bans30d].map((n) => formatNumber(n)).join(" · "),
  },
];

const keyActions = (k: Row) => <KeyActions apiKey={k} />;

/** Downloads the list's filtered view, every page, as CSV (streamed by GET /api/keys/export). */
function download({ page: _, pageSize: __, ...filters }: ReturnType<typeof useKeysQuery>["input"]) {
  const query = new URLSearchParams(Object.entries(filters).map(([k, v]) => [k, String(v)]));
  Object.assign(document.createElement("a"), { href: `/api/keys/export?${query}`, download: "" }).click();
}

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
        description="Keys let server-to-server clients call the public API. Requests are those that reached the API; 429s are counted apart; days are UTC days, today included."
        actions={
          <>
            <Button variant="default" onClick={() => download(input)}>
              Export CSV
            </Button>
            <Button onClick={issue.open}>Issue key</Button>
          </>
        }
      />
      <RouteLink href="/admin/keys/deprecated-calls" size="sm" mb="sm" display="inline-block">
        Keys calling the deprecated getPet, with whom to contact
      </RouteLink>
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
      </FilterBar>
      <PhoneSort
        options={PHONE_SORTS}
        view={{ sort: view.sort, dir: "desc" }}
        onChange={(sort) => filter({ sort })}
      />
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
        minWidth={1080}
        columns={COLUMNS}
        headers={sortHeaders(SORTABLE, { sort: view.sort, dir: "desc" }, (sort) => filter({ sort }))}
        actions={keyActions}
        compactCards
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
