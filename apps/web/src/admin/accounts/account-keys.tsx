"use client";
/** An account's API keys, each linking its own page (/admin/keys/[id]). */
import { Anchor, Badge, Code, Text } from "@mantine/core";
import Link from "next/link";
import { DataTable } from "../components/data-table";
import { formatDateTime } from "../format";
import { STATE_COLORS } from "../keys/key-meta";
import type { AccountDetail } from "./account-meta";

type Key = AccountDetail["apiKeys"][number];

export function AccountKeysTable({ keys }: { keys: Key[] }) {
  if (keys.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No keys yet: the account's members create them in the developer portal.
      </Text>
    );
  return (
    <DataTable<Key>
      label="Keys of this account table"
      rows={keys}
      rowKey={(k) => k.id}
      minWidth={720}
      columns={[
        {
          key: "name",
          header: "Name",
          title: true,
          cell: (k) => (
            <Anchor component={Link} href={`/admin/keys/${k.id}`} fw={500}>
              {k.name}
            </Anchor>
          ),
        },
        { key: "prefix", header: "Prefix", cell: (k) => <Code>{k.prefix}…</Code> },
        {
          key: "state",
          header: "State",
          cell: (k) => (
            <Badge variant="light" color={STATE_COLORS[k.state]} style={{ overflow: "visible" }}>
              {k.state}
            </Badge>
          ),
        },
        { key: "created", header: "Created", cell: (k) => formatDateTime(k.createdAt) },
        {
          key: "used",
          header: "Last used",
          cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"),
        },
      ]}
    />
  );
}
