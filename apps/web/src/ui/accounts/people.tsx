"use client";
/** An account's members, with the actions on each where the viewer may manage them, and its open invitations. */

import { Button } from "@mantine/core";
import type { MemberRole } from "@petstore/contracts";
import { useState } from "react";
import { DataTable } from "../components/data-table";
import { Hint, StateBadge, YouMarker } from "../components/page";
import { formatDate, formatDateTime } from "../format";
import { InviteDialog } from "./invite-dialog";
import { type AccountMember, MemberActions, type MemberScope } from "./member-actions";

const roleBadge = (role: MemberRole) => (
  <StateBadge color={role === "owner" ? "grape" : "blue"}>{role}</StateBadge>
);

interface Invitation {
  id: string;
  email: string;
  role: MemberRole;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
  /** Who sent it; admins see it, members do not. */
  createdBy?: string;
}

/** The members; `manage` gives each row its actions, `me` marks the signed-in member's own row. */
export function MembersTable({
  members,
  manage,
  me,
}: {
  members: (AccountMember & { createdAt: string })[];
  manage?: MemberScope;
  me?: string;
}) {
  if (members.length === 0) return <Hint>No members yet: they join by accepting an invitation.</Hint>;
  return (
    <DataTable
      label="Members table"
      rows={members}
      rowKey={(m) => m.id}
      minWidth={manage ? 860 : 640}
      columns={[
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
        {
          key: "active",
          header: "State",
          cell: (m) => (
            <StateBadge color={m.active ? "teal" : "gray"}>{m.active ? "Active" : "Deactivated"}</StateBadge>
          ),
        },
        { key: "joined", header: "Member since", cell: (m) => formatDate(m.createdAt) },
      ]}
      actions={
        manage
          ? (m) => <MemberActions member={m} members={members} target={manage} self={m.id === me} />
          : undefined
      }
    />
  );
}

/**
 * The invitations not accepted (expired ones labelled "expired"), or a line saying there are none; with `resend`
 * (the viewer may invite: an owner, `{}`, or an admin, `{ accountId }`) an expired one has "Send again", which
 * invites the same email with the same role (a new link).
 */
export function InvitationsTable({
  invitations,
  resend,
}: {
  invitations: Invitation[];
  resend?: { accountId?: string };
}) {
  const [again, setAgain] = useState<Invitation | null>(null);
  if (invitations.length === 0) return <Hint>No open invitations.</Hint>;
  const by = invitations.some((i) => i.createdBy !== undefined);
  return (
    <>
      <DataTable
        label="Open invitations table"
        rows={invitations}
        rowKey={(i) => i.id}
        minWidth={640}
        columns={[
          { key: "email", header: "Email", title: true, cell: (i) => i.email },
          { key: "role", header: "Role", cell: (i) => roleBadge(i.role) },
          ...(by ? [{ key: "by", header: "Invited by", cell: (i: Invitation) => i.createdBy }] : []),
          { key: "sent", header: "Sent", cell: (i) => formatDateTime(i.createdAt) },
          {
            key: "expires",
            header: "Link expires",
            cell: (i) =>
              i.expired ? (
                <>
                  <StateBadge color="gray">expired</StateBadge> {formatDateTime(i.expiresAt)}
                </>
              ) : (
                formatDateTime(i.expiresAt)
              ),
          },
        ]}
        actions={
          resend
            ? (i) =>
                i.expired ? (
                  <Button
                    size="xs"
                    variant="light"
                    onClick={() => setAgain(i)}
                    aria-label={`Send again to ${i.email}`}
                  >
                    Send again
                  </Button>
                ) : null
            : undefined
        }
      />
      {again && resend ? (
        <InviteDialog
          accountId={resend.accountId}
          initial={{ email: again.email, role: again.role }}
          onClose={() => setAgain(null)}
        />
      ) : null}
    </>
  );
}
