"use client";
/** Users (admins): create staff and admins, change roles, deactivate (ending their sessions) or reactivate. */
import { Badge, Button, Group, Table, Text, VisuallyHidden } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ConfirmAction } from "../components/confirm-action";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { TableScroll } from "../components/table-scroll";
import { useCurrentUser } from "../current-user";
import { notifyError, notifySuccess } from "../feedback";
import { formatDate } from "../format";
import { useTRPC } from "../trpc";
import { UserFormModal } from "./user-form-modal";

export function UsersPage() {
  const trpc = useTRPC();
  const me = useCurrentUser();
  const queryClient = useQueryClient();
  const [formOpen, form] = useDisclosure(false);
  const users = useQuery(trpc.users.list.queryOptions());
  const setRole = useMutation(trpc.users.setRole.mutationOptions());
  const setActive = useMutation(trpc.users.setActive.mutationOptions());

  const run = async (
    action: () => Promise<{ name: string }>,
    success: (name: string) => string,
    failure: string,
  ) => {
    try {
      const user = await action();
      await queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
      notifySuccess(success(user.name));
    } catch (error) {
      notifyError(failure, error);
      throw error;
    }
  };

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
          <TableScroll label="Users table" minWidth={760}>
            <Table striped highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th ta="right">Sessions</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.map((u) => {
                  const self = u.id === me.id;
                  const otherRole = u.role === "admin" ? "staff" : "admin";
                  return (
                    <Table.Tr key={u.id}>
                      <Table.Td fw={500}>
                        {u.name}
                        {self ? (
                          <Text span c="dimmed" size="xs">
                            {" "}
                            (you)
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td>{u.email}</Table.Td>
                      <Table.Td>
                        <Badge variant="light" color={u.role === "admin" ? "grape" : "blue"}>
                          {u.role}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Badge variant="dot" color={u.active ? "teal" : "gray"}>
                          {u.active ? "Active" : "Deactivated"}
                        </Badge>
                      </Table.Td>
                      <Table.Td ta="right">{u.activeSessions}</Table.Td>
                      <Table.Td>{formatDate(u.createdAt)}</Table.Td>
                      <Table.Td>
                        {self ? null : (
                          <Group gap={6} justify="flex-end" wrap="nowrap">
                            <ConfirmAction
                              label={`Make ${otherRole}`}
                              ariaLabel={`Make ${otherRole}: ${u.name}`}
                              confirmColor="blue"
                              variant="default"
                              title={`Make ${u.name} ${otherRole === "admin" ? "an admin" : "staff"}?`}
                              message={
                                otherRole === "admin"
                                  ? `${u.name} will be able to issue API keys, change plans, manage users and read the audit log.`
                                  : `${u.name} will keep access to animals and categories only.`
                              }
                              confirmLabel={`Make ${otherRole}`}
                              onConfirm={() =>
                                run(
                                  () => setRole.mutateAsync({ id: u.id, role: otherRole }),
                                  (name) => `${name} is now ${otherRole}.`,
                                  "Could not change the role",
                                )
                              }
                            />
                            {u.active ? (
                              <ConfirmAction
                                label="Deactivate"
                                ariaLabel={`Deactivate ${u.name}`}
                                title={`Deactivate ${u.name}?`}
                                message={`${u.name} will be signed out everywhere at once and will not be able to sign in until reactivated.`}
                                confirmLabel="Deactivate"
                                onConfirm={() =>
                                  run(
                                    () => setActive.mutateAsync({ id: u.id, active: false }),
                                    (name) => `${name} was deactivated and signed out.`,
                                    "Could not deactivate the user",
                                  )
                                }
                              />
                            ) : (
                              <Button
                                size="xs"
                                variant="light"
                                aria-label={`Reactivate ${u.name}`}
                                loading={setActive.isPending && setActive.variables?.id === u.id}
                                onClick={() =>
                                  run(
                                    () => setActive.mutateAsync({ id: u.id, active: true }),
                                    (name) => `${name} can sign in again.`,
                                    "Could not reactivate the user",
                                  ).catch(() => undefined)
                                }
                              >
                                Reactivate
                              </Button>
                            )}
                          </Group>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </TableScroll>
        )}
      </QueryState>
      <UserFormModal opened={formOpen} onClose={form.close} />
    </>
  );
}
