"use client";
/**
 * Users (admins): the people who sign in to the dashboard, sorted by any column in the URL (the database's order:
 * core's users/list.ts); create staff and admins, change roles, end sessions, deactivate or reactivate.
 */
import { Badge, Button, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import type { UserSort } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { PhoneSort, sortHeaders } from "@/admin/components/sort";
import { type Column, QueryTable } from "@/ui/components/data-table";
import { PageHeader, StateBadge, YouMarker } from "@/ui/components/page";
import { useNotifiedMutation } from "@/ui/feedback";
import { formatDate } from "@/ui/format";
import { RequireTwoFactorSwitch } from "@/ui/people/require-two-factor";
import { useCurrentUser } from "@/ui/shell";
import { useTRPC } from "@/ui/trpc";
import { useUsersQuery } from "./use-users-query";
import { type User, UserActions } from "./user-actions";
import { UserDialog } from "./user-dialog";

const PHONE_SORTS: { value: `${UserSort}-${"asc" | "desc"}`; label: string }[] = [
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

const SORTABLE: Record<UserSort, string> = {
  name: "Name",
  email: "Email",
  role: "Role",
  state: "State",
  sessions: "Sessions",
  createdAt: "Created",
};

const columns = (meId: string): Column<User>[] => [
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
    cell: (u) => <StateBadge color={u.role === "admin" ? "grape" : "blue"}>{u.role}</StateBadge>,
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

export function UsersPage() {
  const trpc = useTRPC();
  const me = useCurrentUser();
  const [creating, create] = useDisclosure(false);
  const query = useUsersQuery();
  const users = useQuery({ ...trpc.users.list.queryOptions(query.input), placeholderData: keepPreviousData });
  return (
    <>
      <PageHeader
        title="Users"
        description="People who can sign in to this dashboard."
        actions={<Button onClick={create.open}>New user</Button>}
      />
      <StaffTwoFactor />
      <PhoneSort options={PHONE_SORTS} view={query.view} onChange={query.setSort} />
      <QueryTable<User>
        query={users}
        errorTitle="Could not load the users"
        empty={{ title: "No users" }}
        label="Users table"
        rowKey={(u) => u.id}
        minWidth={860}
        columns={columns(me.id)}
        headers={sortHeaders(SORTABLE, query.view, query.sortBy)}
        actions={(u) => (u.id === me.id ? null : <UserActions user={u} />)}
      />
      {creating ? <UserDialog onClose={create.close} /> : null}
    </>
  );
}

/** Whether staff and admins must sign in with two-factor sign-in. */
function StaffTwoFactor() {
  const trpc = useTRPC();
  const required = useQuery(trpc.users.twoFactorRequired.queryOptions());
  const save = useNotifiedMutation(trpc.users.setTwoFactorRequired.mutationOptions(), {
    invalidate: [trpc.users.twoFactorRequired.queryKey()],
    success: ({ required }) =>
      required
        ? "Staff now set up two-factor sign-in at their next sign-in."
        : "Two-factor sign-in is no longer required of staff.",
    failure: "Could not change the requirement",
  });
  if (required.data === undefined) return null;
  return (
    <RequireTwoFactorSwitch
      checked={required.data}
      label="Require two-factor sign-in for staff and admins"
      description="People without it set it up right after their next password sign-in."
      busy={save.isPending}
      onChange={(value) => save.mutate({ required: value })}
    />
  );
}
