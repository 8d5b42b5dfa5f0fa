"use client";
/**
 * The account's API keys: name (a link to the key's page), prefix, scopes, state, creation, last use and today's
 * requests, with roll and revoke per key; "Create key" while the account may hold another live key.
 */
import { Anchor, Badge, Button, Code, Group, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { type Column, DataTable } from "@/admin/components/data-table";
import { QueryState } from "@/admin/components/query-state";
import { formatDateTime, formatNumber } from "@/admin/format";
import { STATE_COLORS, STATE_LABELS } from "@/admin/keys/key-meta";
import { ScopeBadges } from "@/admin/keys/scopes-field";
import { useTRPC } from "@/admin/trpc";
import { CreateKeyModal } from "./create-key-modal";
import { KeyButtons } from "./key-buttons";
import type { PortalAccount, PortalKey } from "./portal-meta";

const COLUMNS: Column<PortalKey>[] = [
  {
    key: "name",
    header: "Name",
    title: true,
    minWidth: 150,
    cell: (k) => (
      <Anchor component={Link} href={`/portal/keys/${k.id}`} fw={500}>
        {k.name}
      </Anchor>
    ),
  },
  { key: "prefix", header: "Prefix", cell: (k) => <Code>{k.prefix}…</Code> },
  { key: "scopes", header: "Scopes", cell: (k) => <ScopeBadges scopes={k.scopes} /> },
  {
    key: "state",
    header: "State",
    minWidth: 110,
    cell: (k) => (
      <Badge variant="light" color={STATE_COLORS[k.state]} style={{ overflow: "visible" }}>
        {STATE_LABELS[k.state]}
      </Badge>
    ),
  },
  { key: "created", header: "Created", minWidth: 120, cell: (k) => formatDateTime(k.createdAt) },
  {
    key: "used",
    header: "Last used",
    minWidth: 120,
    cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"),
  },
  { key: "today", header: "Requests today", align: "right", cell: (k) => formatNumber(k.requestsToday) },
];

/** Why no key can be created now, or null when one can. */
function createBlocked(account: PortalAccount): string | null {
  if (account.state === "suspended") return "A suspended account cannot create keys.";
  if (account.maxKeys !== null && account.keys >= account.maxKeys)
    return `Your plan allows ${account.maxKeys} live keys: revoke one to create another.`;
  return null;
}

export function KeysSection({ account }: { account: PortalAccount }) {
  const trpc = useTRPC();
  const keys = useQuery({ ...trpc.portal.keys.list.queryOptions(), refetchInterval: 30_000 });
  const [createOpen, create] = useDisclosure(false);
  const blocked = createBlocked(account);
  return (
    <section aria-labelledby="keys-heading">
      <Group justify="space-between" align="flex-end" mb="sm">
        <Title order={2} size="h3" id="keys-heading">
          API keys
        </Title>
        <Button onClick={create.open} disabled={blocked !== null}>
          Create key
        </Button>
      </Group>
      {blocked ? (
        <Text size="sm" c="dimmed" mb="sm">
          {blocked}
        </Text>
      ) : null}
      <QueryState
        query={keys}
        errorTitle="Could not load the API keys"
        isEmpty={(rows) => rows.length === 0}
        empty={{ title: "No API keys yet", description: "Create a key to call the Pet Store API." }}
      >
        {(rows) => (
          <DataTable<PortalKey>
            label="API keys table"
            rows={rows}
            rowKey={(k) => k.id}
            minWidth={1000}
            columns={COLUMNS}
            actions={(k) => <KeyButtons apiKey={k} suspended={account.state === "suspended"} />}
          />
        )}
      </QueryState>
      <CreateKeyModal opened={createOpen} onClose={create.close} />
    </section>
  );
}
