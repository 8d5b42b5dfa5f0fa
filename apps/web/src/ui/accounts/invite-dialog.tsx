"use client";
/** Invites a member to an account, an admin's (`accounts.invite`) or an owner's (`portal.invite`); the link once. */
import { Select, TextInput } from "@mantine/core";
import { InvitationCreate } from "@petstore/contracts";
import { FormModal } from "../dialogs";
import { useNotifiedMutation } from "../feedback";
import { useZodForm } from "../forms/use-zod-form";
import { SecretOnce } from "../secret-once";
import { useTRPC } from "../trpc";

const ROLE_OPTIONS = [
  { value: "developer", label: "Developer (manages the account's keys)" },
  { value: "owner", label: "Owner (also invites members)" },
];

/** A new invitation's link, shown once: only its hash is stored. */
export function InvitationLinkOnce({ url, email, onDone }: { url: string; email: string; onDone(): void }) {
  return (
    <SecretOnce
      title="Copy this invitation link now"
      label="Invitation link"
      value={url}
      noun="link"
      done="Done"
      testId="invitation-link"
      onDone={onDone}
    >
      Send it to <strong>{email}</strong>. It is valid for 72 hours and can be used once. This is the only
      time it is shown: if it is lost, invite the person again.
    </SecretOnce>
  );
}

/**
 * Invites to account `accountId` as an admin, or without it to the owner's own account; `initial` fills the form
 * (sending an expired invitation again: a new link, the old one stays dead).
 */
export function InviteDialog({
  accountId,
  initial,
  onClose,
}: {
  accountId?: string;
  initial?: { email: string; role: "owner" | "developer" };
  onClose(): void;
}) {
  const trpc = useTRPC();
  const form = useZodForm(InvitationCreate, initial ?? { email: "", role: "developer" }, (v) => ({
    email: v.email.trim(),
    role: v.role,
  }));
  const feedback = {
    success: (i: { email: string; role: string }) => `${i.email} was invited as ${i.role}.`,
    failure: "Could not invite the member",
    form,
  };
  const admin = useNotifiedMutation(trpc.accounts.invite.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey()],
    ...feedback,
  });
  const portal = useNotifiedMutation(trpc.portal.invite.mutationOptions(), {
    invalidate: [trpc.portal.pathKey()],
    ...feedback,
  });
  const invited = (accountId ? admin : portal).data;
  return (
    <FormModal
      title={invited ? "Send the invitation link" : "Invite a member"}
      size="lg"
      onClose={onClose}
      form={form}
      mutation={{
        mutate: (input) => (accountId ? admin.mutate({ ...input, accountId }) : portal.mutate(input)),
        isPending: admin.isPending || portal.isPending,
      }}
      submitLabel="Invite"
      done={
        invited ? (
          <InvitationLinkOnce url={invited.invitationUrl} email={invited.email} onDone={onClose} />
        ) : undefined
      }
    >
      <TextInput
        label="Email"
        type="email"
        required
        autoComplete="off"
        {...form.field("email")}
        data-autofocus
      />
      <Select label="Role" data={ROLE_OPTIONS} allowDeselect={false} {...form.field("role")} />
    </FormModal>
  );
}
