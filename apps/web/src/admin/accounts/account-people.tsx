"use client";
/**
 * An account's members (email, name, role, whether they can sign in) with the admin's actions on each (change the
 * role, remove), and its open invitations.
 */
import { Badge, Text } from "@mantine/core";
import { DataTable } from "../components/data-table";
import { formatDateTime } from "../format";
import type { AccountDetail } from "./account-meta";
import { MemberActions } from "./member-actions";

type Member = AccountDetail["memberList"][number];
type Invitation = AccountDetail["invitations"][number];

const roleBadge = (role: Member["role"]) => (
  <Badge variant="light" color={role === "owner" ? "grape" : "blue"}>
    {role}
  </Badge>
);

/** The members table of account `accountId`, or a line saying there are none yet. */
export function MembersTable({ accountId, members }: { accountId: string; members: Member[] }) {
  if (members.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No members yet: they join by accepting an invitation.
      </Text>
    );
  return (
    <DataTable<Member>
      label="Members table"
      rows={members}
      rowKey={(m) => m.id}
      minWidth={640}
      columns={[
        { key: "email", header: "Email", title: true, cell: (m) => m.email },
        { key: "name", header: "Name", cell: (m) => m.name },
        { key: "role", header: "Role", cell: (m) => roleBadge(m.role) },
        {
          key: "active",
          header: "Active",
          cell: (m) => (
            <Badge variant="light" color={m.active ? "teal" : "gray"}>
              {m.active ? "Active" : "Deactivated"}
            </Badge>
          ),
        },
        { key: "joined", header: "Joined", cell: (m) => formatDateTime(m.createdAt) },
      ]}
      actions={(m) => <MemberActions member={m} members={members} target={{ scope: "admin", accountId }} />}
    />
  );
}

/** The invitations neither accepted nor expired, or a line saying there are none. */
export function InvitationsTable({ invitations }: { invitations: Invitation[] }) {
  if (invitations.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No open invitations.
      </Text>
    );
  return (
    <DataTable<Invitation>
      label="Open invitations table"
      rows={invitations}
      rowKey={(i) => i.id}
      minWidth={640}
      columns={[
        { key: "email", header: "Email", title: true, cell: (i) => i.email },
        { key: "role", header: "Role", cell: (i) => roleBadge(i.role) },
        { key: "by", header: "Invited by", cell: (i) => i.createdBy },
        { key: "expires", header: "Expires", cell: (i) => formatDateTime(i.expiresAt) },
      ]}
    />
  );
}
