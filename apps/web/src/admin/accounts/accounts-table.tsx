"use client";
/**
 * The Accounts table: name (linking the account's page), plan, state, live keys of the plan's cap, members,
 * requests today and creation; name, created, keys and requests today sort (in the URL, use-accounts-query.ts).
 * On phones, where the rows are cards without a header row, a "Sort by" choice stands above them.
 */
import { Anchor, Badge, Group, Select } from "@mantine/core";
import Link from "next/link";
import { ariaSort, SortButton } from "../animals/sort-header";
import { type Column, DataTable } from "../components/data-table";
import { formatDateTime, formatNumber, planLabel } from "../format";
import { ACCOUNT_STATE_COLORS, ACCOUNT_STATE_LABELS, type AccountRow, keysOfCap } from "./account-meta";
import type { AccountSort, useAccountsQuery } from "./use-accounts-query";

const PHONE_SORTS = [
  { value: "name-asc", label: "Name, A to Z" },
  { value: "name-desc", label: "Name, Z to A" },
  { value: "createdAt-desc", label: "Newest first" },
  { value: "createdAt-asc", label: "Oldest first" },
  { value: "keys-desc", label: "Most live keys" },
  { value: "requestsToday-desc", label: "Most requests today" },
];

const COLUMNS: Column<AccountRow>[] = [
  {
    key: "name",
    header: "Name",
    title: true,
    minWidth: 180,
    cell: (a) => (
      <Anchor component={Link} href={`/admin/accounts/${a.id}`} fw={500}>
        {a.name}
      </Anchor>
    ),
  },
  { key: "plan", header: "Plan", cell: (a) => planLabel(a.plan) },
  {
    key: "state",
    header: "State",
    cell: (a) => (
      <Badge variant="light" color={ACCOUNT_STATE_COLORS[a.state]} style={{ overflow: "visible" }}>
        {ACCOUNT_STATE_LABELS[a.state]}
      </Badge>
    ),
  },
  { key: "keys", header: "Live keys", align: "right", cell: (a) => keysOfCap(a.keys, a.maxKeys) },
  { key: "members", header: "Members", align: "right", cell: (a) => formatNumber(a.members) },
  {
    key: "requestsToday",
    header: "Requests today",
    label: "Requests today (UTC)",
    align: "right",
    cell: (a) => formatNumber(a.requestsToday),
  },
  { key: "createdAt", header: "Created", minWidth: 130, cell: (a) => formatDateTime(a.createdAt) },
];

/** The accounts of the current filter, with sortable headers. */
export function AccountsTable({
  rows,
  busy,
  query,
}: {
  rows: AccountRow[];
  busy: boolean;
  query: ReturnType<typeof useAccountsQuery>;
}) {
  const { sort, dir } = query.view;
  const sortHeader = (label: string, column: AccountSort) => ({
    header: (
      <SortButton
        label={label}
        active={sort === column}
        direction={dir}
        onSort={() => query.sortBy(column)}
      />
    ),
    headerProps: { "aria-sort": ariaSort(sort === column, dir) },
  });
  const headers = {
    name: sortHeader("Name", "name"),
    keys: sortHeader("Live keys", "keys"),
    requestsToday: sortHeader("Requests today", "requestsToday"),
    createdAt: sortHeader("Created", "createdAt"),
  };
  return (
    <>
      <Group hiddenFrom="sm" justify="flex-end" mb="sm">
        <Select
          label="Sort by"
          data={PHONE_SORTS}
          value={PHONE_SORTS.some((s) => s.value === `${sort}-${dir}`) ? `${sort}-${dir}` : null}
          onChange={(v) => {
            const [column, direction] = (v ?? "name-asc").split("-") as [AccountSort, "asc" | "desc"];
            query.filter({ sort: column, dir: direction });
          }}
          allowDeselect={false}
          w={200}
          size="xs"
        />
      </Group>
      <DataTable
        label="Accounts table"
        rows={rows}
        rowKey={(a) => a.id}
        columns={COLUMNS}
        headers={headers}
        minWidth={900}
        busy={busy}
      />
    </>
  );
}
