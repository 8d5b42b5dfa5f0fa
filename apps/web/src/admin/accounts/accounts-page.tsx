"use client";
/**
 * Consumer accounts (admins): the organizations whose members manage their keys in the developer portal, searched,
 * filtered and sorted in the URL (use-accounts-query.ts); "New account" shows its owner's invitation link once.
 */
import { Button } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { AccountListFilter } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { FilterBar, FilterSelect, PLAN_FILTER, SearchFilter } from "@/admin/components/filters";
import { PhoneSort, sortHeaders } from "@/admin/components/sort";
import { type Column, QueryTable } from "@/ui/components/data-table";
import { Hint, PageHeader, RouteLink, StateBadge } from "@/ui/components/page";
import { formatDateTime, formatNumber, planLabel } from "@/ui/format";
import { useTRPC } from "@/ui/trpc";
import { ACCOUNT_STATE_COLORS, ACCOUNT_STATE_LABELS, type AccountRow, keysOfCap } from "./account-meta";
import { NewAccountDialog } from "./new-account-dialog";
import { type AccountSort, useAccountsQuery } from "./use-accounts-query";

const STATE_FILTER = [
  { value: "", label: "Any state" },
  ...(["active", "suspended"] as const).map((s) => ({ value: s, label: ACCOUNT_STATE_LABELS[s] })),
];

/** The longest list one call returns (core's MAX_ACCOUNTS_LISTED). */
const LISTED_AT_MOST = 500;

const PHONE_SORTS: { value: `${AccountSort}-${"asc" | "desc"}`; label: string }[] = [
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
      <RouteLink href={`/admin/accounts/${a.id}`} fw={500}>
        {a.name}
      </RouteLink>
    ),
  },
  { key: "plan", header: "Plan", cell: (a) => planLabel(a.plan) },
  {
    key: "state",
    header: "State",
    cell: (a) => (
      <StateBadge color={ACCOUNT_STATE_COLORS[a.state]}>{ACCOUNT_STATE_LABELS[a.state]}</StateBadge>
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

const SORTABLE = { name: "Name", keys: "Live keys", requestsToday: "Requests today", createdAt: "Created" };

export function AccountsPage() {
  const trpc = useTRPC();
  const [creating, create] = useDisclosure(false);
  const { view, input, filtered, filter, sortBy } = useAccountsQuery();
  const accounts = useQuery({
    ...trpc.accounts.list.queryOptions(input),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  const newAccount = <Button onClick={create.open}>New account</Button>;
  return (
    <>
      <PageHeader
        title="Accounts"
        description="Organizations whose members manage their own API keys in the developer portal."
        actions={newAccount}
      />
      <FilterBar>
        <SearchFilter
          label="Search by name"
          placeholder="e.g. Acme"
          value={view.q}
          onChange={(q) => filter({ q })}
          schema={AccountListFilter.shape.query}
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
          w={{ base: "47%", xs: 150 }}
        />
      </FilterBar>
      <PhoneSort options={PHONE_SORTS} view={view} onChange={(sort, dir) => filter({ sort, dir })} />
      <QueryTable
        query={accounts}
        errorTitle="Could not load the accounts"
        empty={{
          title: filtered ? "No accounts match" : "No accounts",
          description: filtered
            ? "Try another name, plan or state."
            : "Create an account to invite its owner to the developer portal.",
          action: filtered ? undefined : newAccount,
        }}
        label="Accounts table"
        rowKey={(a) => a.id}
        columns={COLUMNS}
        headers={sortHeaders(SORTABLE, view, sortBy)}
        minWidth={900}
        footer={(rows) => (
          <Hint mt="sm" role="status">
            {rows.length >= LISTED_AT_MOST
              ? `The first ${LISTED_AT_MOST} accounts are shown: narrow the search to see others.`
              : `${rows.length} ${rows.length === 1 ? "account" : "accounts"}`}
          </Hint>
        )}
      />
      {creating ? <NewAccountDialog onClose={create.close} /> : null}
    </>
  );
}
