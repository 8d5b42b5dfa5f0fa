"use client";
/**
 * The account's members and its open invitations; owners invite new members here, and change a member's role or
 * remove them (themselves too, while another owner stays).
 */
import { Badge, Button, Group, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { MemberActions } from "@/admin/accounts/member-actions";
import { type Column, DataTable } from "@/admin/components/data-table";
import { YouMarker } from "@/admin/components/you-marker";
import { useCurrentUser } from "@/admin/current-user";
import { formatDate, formatDateTime } from "@/admin/format";
import { InviteModal } from "./invite-modal";
import type { PortalAccount } from "./portal-meta";

type Member = PortalAccount["memberList"][number];
type Invitation = PortalAccount["invitations"][number];

const roleBadge = (role: Member["role"]) => (
  <Badge variant="light" color={role === "owner" ? "grape" : "blue"}>
    {role}
  </Badge>
);

const memberColumns = (me: string): Column<Member>[] => [
  {
    key: "name",
    header: "Name",
    title: true,
    cell: (m) => (
      <>
        {m.name}
        <YouMarker shown={m.id === me} />
      </>
    ),
  },
  { key: "email", header: "Email", cell: (m) => m.email },
  { key: "role", header: "Role", cell: (m) => roleBadge(m.role) },
  { key: "since", header: "Member since", cell: (m) => formatDate(m.createdAt) },
];

const INVITATION_COLUMNS: Column<Invitation>[] = [
  { key: "email", header: "Email", title: true, cell: (i) => i.email },
  { key: "role", header: "Role", cell: (i) => roleBadge(i.role) },
  { key: "sent", header: "Sent", cell: (i) => formatDateTime(i.createdAt) },
  { key: "expires", header: "Link expires", cell: (i) => formatDateTime(i.expiresAt) },
];

export function MembersSection({ account }: { account: PortalAccount }) {
  const user = useCurrentUser();
  const [inviteOpen, invite] = useDisclosure(false);
  // The role as the account's query reads it, which a change of one's own role refreshes.
  const owner = account.role === "owner";
  return (
    <section aria-labelledby="members-heading">
      <Group justify="space-between" align="flex-end" mt="xl" mb="sm">
        <Title order={2} size="h3" id="members-heading">
          Members
        </Title>
        {owner ? <Button onClick={invite.open}>Invite member</Button> : null}
      </Group>
      <DataTable<Member>
        label="Members table"
        rows={account.memberList}
        rowKey={(m) => m.id}
        minWidth={owner ? 860 : 640}
        columns={memberColumns(user.id)}
        actions={
          owner
            ? (m) => (
                <MemberActions
                  member={m}
                  members={account.memberList}
                  target={{ scope: "portal" }}
                  self={m.id === user.id}
                />
              )
            : undefined
        }
      />
      <Title order={3} size="h4" mt="lg" mb="sm">
        Open invitations
      </Title>
      {account.invitations.length === 0 ? (
        <Text size="sm" c="dimmed">
          No invitations are waiting to be accepted.
        </Text>
      ) : (
        <DataTable<Invitation>
          label="Open invitations table"
          rows={account.invitations}
          rowKey={(i) => i.id}
          minWidth={640}
          columns={INVITATION_COLUMNS}
        />
      )}
      {inviteOpen ? <InviteModal onClose={invite.close} /> : null}
    </section>
  );
}
