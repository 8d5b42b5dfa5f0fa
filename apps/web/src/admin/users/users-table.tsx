"use client";
/**
 * The Users table: name, email, role, state, live sessions and creation, every column sortable (in the URL,
 * use-users-query.ts; the order is the database's, users/list.ts in core). On phones, where the rows are cards
 * without a header row, a "Sort by" choice stands above them.
 */
import { Badge, Group, Select, Text } from "@mantine/core";
import type { UserSort } from "@petstore/contracts";
import type { RouterOutputs } from "@/server/trpc/router";
import { ariaSort, SortButton } from "../animals/sort-header";
import { type Column, DataTable } from "../components/data-table";
import { YouMarker } from "../components/you-marker";
import { formatDate } from "../format";
import type { useUsersQuery } from "./use-users-query";
import { UserActions } from "./user-actions";

export type User = RouterOutputs["users"]["list"][number];

const PHONE_SORTS = [
  { value: "role-asc", label: "Admins first" },
  { value: "name-asc", label: "Name, A to Z" },
  { value: "name-desc", label: "Name, Z to A" },
  { value: "email-asc", label: "Email, A to Z" },
  { value: "state-asc", label: "Active first" },
  { value: "state-desc", label: "Deactivated first" },
  { value: "sessions-desc", label: "Most sessions" },
  { value: "createdAt-desc", label: "Newest first" },
  { value: "createdAt-asc", label: "Oldest first" },
];

/** The sortable columns' header labels. */
const SORT_LABELS: Record<UserSort, string> = {
  name: "Name",
  email: "Email",
  role: "Role",
  state: "State",
  sessions: "Sessions",
  createdAt: "Created",
};

/** The users in the query's order, with sortable headers; `meId` is the signed-in admin (no actions on their row). */
export function UsersTable({
  rows,
  busy,
  meId,
  query,
}: {
  rows: User[];
  busy: boolean;
  meId: string;
  query: ReturnType<typeof useUsersQuery>;
}) {
  const { sort, dir } = query.view;
  const headers = Object.fromEntries(
    (Object.keys(SORT_LABELS) as UserSort[]).map((column) => [
      column,
      {
        header: (
          <SortButton
            label={SORT_LABELS[column]}
            active={sort === column}
            direction={dir}
            onSort={() => query.sortBy(column)}
          />
        ),
        headerProps: { "aria-sort": ariaSort(sort === column, dir) },
      },
    ]),
  );
  const columns: Column<User>[] = [
    {
      key: "name",
      header: "Name",
      title: true,
      cell: (u) => (
        <Text span fw={500}>
          {u.name}
          <YouMarker shown={u.id === meId} />
        </Text>
      ),
    },
    { key: "email", header: "Email", cell: (u) => u.email },
    {
      key: "role",
      header: "Role",
      cell: (u) => (
        <Badge variant="light" color={u.role === "admin" ? "grape" : "blue"}>
          {u.role}
        </Badge>
      ),
    },
    {
      key: "state",
      header: "State",
      cell: (u) => (
        <Badge variant="dot" color={u.active ? "teal" : "gray"}>
          {u.active ? "Active" : "Deactivated"}
        </Badge>
      ),
    },
    { key: "sessions", header: "Sessions", align: "right", cell: (u) => u.activeSessions },
    { key: "createdAt", header: "Created", cell: (u) => formatDate(u.createdAt) },
  ];
  const phoneSort = `${sort}-${dir}`;
  return (
    <>
      <Group hiddenFrom="sm" justify="flex-end" mb="sm">
        <Select
          label="Sort by"
          data={PHONE_SORTS}
          value={PHONE_SORTS.some((s) => s.value === phoneSort) ? phoneSort : null}
          onChange={(v) => {
            const [column, direction] = (v ?? "role-asc").split("-") as [UserSort, "asc" | "desc"];
            query.setSort(column, direction);
          }}
          allowDeselect={false}
          w={200}
          size="xs"
        />
      </Group>
      <DataTable<User>
        label="Users table"
        rows={rows}
        rowKey={(u) => u.id}
        minWidth={860}
        busy={busy}
        columns={columns}
        headers={headers}
        actions={(u) => (u.id === meId ? null : <UserActions user={u} />)}
      />
    </>
  );
}
