"use client";
/**
 * Users (admins): create staff and admins, change roles, deactivate (ending their sessions) or reactivate,
 * and end every session of a user (audited).
 */
import { Badge, Button, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@/server/trpc/router";
import { ConfirmAction } from "../components/confirm-action";
import { DataTable } from "../components/data-table";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { useCurrentUser } from "../current-user";
import { formatDate, formatNumber } from "../format";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { UserFormModal } from "./user-form-modal";

type User = RouterOutputs["users"]["list"][number];

function UserActions({ user }: { user: User }) {
  const trpc = useTRPC();
  const invalidate = [trpc.users.pathKey()];
  const setRole = useNotifiedMutation(trpc.users.setRole.mutationOptions(), {
    invalidate,
    success: (u) => `${u.name} is now ${u.role}.`,
    failure: "Could not change the role",
  });
  const setActive = useNotifiedMutation(trpc.users.setActive.mutationOptions(), {
    invalidate,
    success: (u) => (u.active ? `${u.name} can sign in again.` : `${u.name} was deactivated and signed out.`),
    failure: (v) => (v.active ? "Could not reactivate the user" : "Could not deactivate the user"),
  });
  const endSessions = useNotifiedMutation(trpc.users.endSessions.mutationOptions(), {
    invalidate,
    success: ({ ended }) => `${user.name} was signed out of ${ended} session${ended === 1 ? "" : "s"}.`,
    failure: "Could not end the sessions",
  });
  const otherRole = user.role === "admin" ? "staff" : "admin";
  return (
    <>
      <ConfirmAction
        label={`Make ${otherRole}`}
        ariaLabel={`Make ${otherRole}: ${user.name}`}
        confirmColor="blue"
        variant="default"
        title={`Make ${user.name} ${otherRole === "admin" ? "an admin" : "staff"}?`}
        message={
          otherRole === "admin"
            ? `${user.name} will be able to issue API keys, change plans, manage users and read the audit log.`
            : `${user.name} will keep access to animals and categories only.`
        }
        confirmLabel={`Make ${otherRole}`}
        onConfirm={() => setRole.mutateAsync({ id: user.id, role: otherRole })}
      />
      {user.activeSessions > 0 ? (
        <ConfirmAction
          label="End sessions"
          ariaLabel={`End sessions of ${user.name}`}
          title={`Sign ${user.name} out everywhere?`}
          message={`${user.name}'s ${formatNumber(user.activeSessions)} session${user.activeSessions === 1 ? "" : "s"} end at once; they can sign in again.`}
          confirmLabel={`End ${formatNumber(user.activeSessions)} session${user.activeSessions === 1 ? "" : "s"}`}
          onConfirm={() => endSessions.mutateAsync({ id: user.id })}
        />
      ) : null}
      {user.active ? (
        <ConfirmAction
          label="Deactivate"
          ariaLabel={`Deactivate ${user.name}`}
          title={`Deactivate ${user.name}?`}
          message={`${user.name} will be signed out everywhere at once and will not be able to sign in until reactivated.`}
          confirmLabel="Deactivate"
          onConfirm={() => setActive.mutateAsync({ id: user.id, active: false })}
        />
      ) : (
        <Button
          size="xs"
          variant="light"
          aria-label={`Reactivate ${user.name}`}
          loading={setActive.isPending}
          onClick={() => setActive.mutate({ id: user.id, active: true })}
        >
          Reactivate
        </Button>
      )}
    </>
  );
}

export function UsersPage() {
  const trpc = useTRPC();
  const me = useCurrentUser();
  const [formOpen, form] = useDisclosure(false);
  const users = useQuery(trpc.users.list.queryOptions());

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
        {(data) => (
          <DataTable<User>
            label="Users table"
            rows={data}
            rowKey={(u) => u.id}
            minWidth={860}
            columns={[
              {
                key: "name",
                header: "Name",
                title: true,
                cell: (u) => (
                  <Text span fw={500}>
                    {u.name}
                    {u.id === me.id ? (
                      <Text span c="dimmed" size="xs">
                        {" "}
                        (you)
                      </Text>
                    ) : null}
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
              { key: "created", header: "Created", cell: (u) => formatDate(u.createdAt) },
            ]}
            actions={(u) => (u.id === me.id ? null : <UserActions user={u} />)}
          />
        )}
      </QueryState>
      <UserFormModal opened={formOpen} onClose={form.close} />
    </>
  );
}
