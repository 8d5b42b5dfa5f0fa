"use client";
/**
 * A member's actions, for admins and for the account's owners: make owner or developer, remove (signed out at once),
 * each after confirming; none for the only owner. Changing one's own role reloads the portal; leaving signs out.
 */
import { Group } from "@mantine/core";
import type { MemberRole } from "@petstore/contracts";
import { Hint } from "../components/page";
import { ConfirmAction } from "../dialogs";
import { useNotifiedMutation } from "../feedback";
import { leaveTo, useTRPC } from "../trpc";

export interface AccountMember {
  id: string;
  name: string;
  email: string;
  role: MemberRole;
  active: boolean;
}

/** Whose procedures act: an admin's on account `accountId`, or an owner's on their own account. */
export type MemberScope = { scope: "admin"; accountId: string } | { scope: "portal" };

/** Whether `member` is the only active owner among `members` (the account must keep one). */
const isLastOwner = (member: AccountMember, members: readonly AccountMember[]) =>
  member.role === "owner" && members.filter((m) => m.role === "owner" && m.active).length === 1;

const roleName = (role: MemberRole) => (role === "owner" ? "an owner" : "a developer");

export function MemberActions({
  member,
  members,
  target,
  self = false,
}: {
  member: AccountMember;
  /** Every member of the account, to tell whether `member` is its last owner. */
  members: readonly AccountMember[];
  target: MemberScope;
  /** `member` is the signed-in person (portal only). */
  self?: boolean;
}) {
  const trpc = useTRPC();
  // After removing oneself the session is over: no query of the account would answer, so none is refreshed.
  const invalidate =
    target.scope === "admin"
      ? [trpc.accounts.pathKey(), trpc.audit.pathKey()]
      : self
        ? []
        : [trpc.portal.pathKey()];
  const roleFeedback = {
    invalidate,
    success: (m: AccountMember) => `${m.name} is now ${roleName(m.role)}.`,
    failure: "Could not change the role",
    // The portal's frame shows the signed-in person's role: a full load shows the new one.
    onDone: () => (self ? leaveTo("/portal") : undefined),
  };
  const removeFeedback = {
    invalidate,
    success: (m: AccountMember) => `${m.name} was removed from the account and signed out.`,
    failure: "Could not remove the member",
    onDone: () => (self ? leaveTo("/portal/sign-in") : undefined),
  };
  const adminRole = useNotifiedMutation(trpc.accounts.setMemberRole.mutationOptions(), roleFeedback);
  const portalRole = useNotifiedMutation(trpc.portal.setMemberRole.mutationOptions(), roleFeedback);
  const adminRemove = useNotifiedMutation(trpc.accounts.removeMember.mutationOptions(), removeFeedback);
  const portalRemove = useNotifiedMutation(trpc.portal.removeMember.mutationOptions(), removeFeedback);

  const setRole = (role: MemberRole) =>
    target.scope === "admin"
      ? adminRole.mutateAsync({ accountId: target.accountId, id: member.id, role })
      : portalRole.mutateAsync({ id: member.id, role });
  const remove = () =>
    target.scope === "admin"
      ? adminRemove.mutateAsync({ accountId: target.accountId, id: member.id })
      : portalRemove.mutateAsync({ id: member.id });

  if (isLastOwner(member, members)) return <Hint size="xs">The only owner</Hint>;
  const who = self ? "You" : member.name;
  const otherRole: MemberRole = member.role === "owner" ? "developer" : "owner";
  return (
    <Group gap="xs" wrap="nowrap">
      <ConfirmAction
        label={otherRole === "owner" ? "Make owner" : "Make developer"}
        // The visible label first, as assistive technology expects of a name (WCAG 2.5.3, "Label in Name").
        ariaLabel={`${otherRole === "owner" ? "Make owner" : "Make developer"}: ${member.name}`}
        variant="default"
        confirmColor="blue"
        title={self ? `Make yourself ${roleName(otherRole)}?` : `Make ${member.name} ${roleName(otherRole)}?`}
        message={
          otherRole === "owner"
            ? `${who} will also be able to invite members, change their roles and remove them.`
            : `${who} will keep working with the account's keys and webhooks, but will no longer be able to invite, change or remove members.`
        }
        confirmLabel={otherRole === "owner" ? "Make owner" : "Make developer"}
        onConfirm={() => setRole(otherRole)}
      />
      <ConfirmAction
        label={self ? "Leave" : "Remove"}
        ariaLabel={self ? "Leave the account" : `Remove ${member.name}`}
        title={self ? "Leave this account?" : `Remove ${member.name}?`}
        message={`${self ? "You are" : `${member.name} (${member.email}) is`} signed out at once and can no longer sign in to the developer portal. The keys and webhook endpoints ${self ? "you" : "they"} made stay with the account. An owner can invite ${self ? "you" : "them"} again.`}
        confirmLabel={self ? "Leave account" : "Remove member"}
        onConfirm={remove}
      />
    </Group>
  );
}
