"use client";
/**
 * Consumer accounts (admins): the organizations whose members manage their keys in the developer portal,
 * searched by name, filtered by plan and state and sorted (all in the URL, use-accounts-query.ts); "New account"
 * creates one and shows its owner's invitation link once.
 */
import { Button, Group, Select, Text, TextInput } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { AccountListFilter, PlanName } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { planLabel } from "../format";
import { useTRPC } from "../trpc";
import { maxLengthOf } from "../use-zod-form";
import { ACCOUNT_STATE_LABELS } from "./account-meta";
import { AccountsTable } from "./accounts-table";
import { NewAccountModal } from "./new-account-modal";
import { useAccountsQuery } from "./use-accounts-query";

const PLAN_FILTER = [
  { value: "", label: "Any plan" },
  ...PlanName.options.map((p) => ({ value: p, label: planLabel(p) })),
];
const STATE_FILTER = [
  { value: "", label: "Any state" },
  ...(["active", "suspended"] as const).map((s) => ({ value: s, label: ACCOUNT_STATE_LABELS[s] })),
];

/** The longest list one call returns (core's MAX_ACCOUNTS_LISTED). */
const LISTED_AT_MOST = 500;

export function AccountsPage() {
  const trpc = useTRPC();
  const [createOpen, create] = useDisclosure(false);
  const query = useAccountsQuery();
  const { view, input, filtered, filter } = query;
  const accounts = useQuery({
    ...trpc.accounts.list.queryOptions(input),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });

  return (
    <>
      <PageHeader
        title="Accounts"
        description="Organizations whose members manage their own API keys in the developer portal."
        actions={<Button onClick={create.open}>New account</Button>}
      />
      <Group gap="sm" mb="md" align="flex-end" wrap="wrap">
        <TextInput
          label="Search by name"
          placeholder="e.g. Acme"
          type="search"
          value={view.q}
          onChange={(e) => filter({ q: e.currentTarget.value })}
          maxLength={maxLengthOf(AccountListFilter.shape.query)}
          w={{ base: "100%", xs: 260 }}
        />
        <Select
          label="Plan"
          data={PLAN_FILTER}
          value={view.plan ?? ""}
          onChange={(v) => filter({ plan: (v || null) as typeof view.plan })}
          allowDeselect={false}
          w={{ base: "47%", xs: 150 }}
        />
        <Select
          label="State"
          data={STATE_FILTER}
          value={view.state ?? ""}
          onChange={(v) => filter({ state: (v || null) as typeof view.state })}
          allowDeselect={false}
          w={{ base: "47%", xs: 150 }}
        />
      </Group>
      <QueryState
        query={accounts}
        errorTitle="Could not load the accounts"
        isEmpty={(rows) => rows.length === 0}
        empty={{
          title: filtered ? "No accounts match" : "No accounts",
          description: filtered
            ? "Try another name, plan or state."
            : "Create an account to invite its owner to the developer portal.",
          action: filtered ? undefined : <Button onClick={create.open}>New account</Button>,
        }}
      >
        {(rows) => (
          <>
            <AccountsTable rows={rows} busy={accounts.isFetching} query={query} />
            <Text size="sm" c="dimmed" mt="sm" role="status">
              {rows.length >= LISTED_AT_MOST
                ? `The first ${LISTED_AT_MOST} accounts are shown: narrow the search to see others.`
                : `${rows.length} ${rows.length === 1 ? "account" : "accounts"}`}
            </Text>
          </>
        )}
      </QueryState>
      <NewAccountModal opened={createOpen} onClose={create.close} />
    </>
  );
}
