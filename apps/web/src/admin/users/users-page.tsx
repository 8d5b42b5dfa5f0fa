"use client";
/**
 * Users (admins): create staff and admins, change roles, deactivate (ending their sessions) or reactivate,
 * and end every session of a user (audited); the list sorts by any column (users-table.tsx).
 */
import { Button } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { useCurrentUser } from "../current-user";
import { useTRPC } from "../trpc";
import { useUsersQuery } from "./use-users-query";
import { UserFormModal } from "./user-form-modal";
import { UsersTable } from "./users-table";

export function UsersPage() {
  const trpc = useTRPC();
  const me = useCurrentUser();
  const [formOpen, form] = useDisclosure(false);
  const query = useUsersQuery();
  const users = useQuery({ ...trpc.users.list.queryOptions(query.input), placeholderData: keepPreviousData });

  return (
    <>
      <PageHeader
        title="Users"
        description="People who can sign in to this dashboard."
        actions={<Button onClick={form.open}>New user</Button>}
      />
      <QueryState
        query={users}
        errorTitle="Could not load the users"
        isEmpty={(d) => d.length === 0}
        empty={{ title: "No users" }}
      >
        {(data) => <UsersTable rows={data} busy={users.isFetching} meId={me.id} query={query} />}
      </QueryState>
      <UserFormModal opened={formOpen} onClose={form.close} />
    </>
  );
}
