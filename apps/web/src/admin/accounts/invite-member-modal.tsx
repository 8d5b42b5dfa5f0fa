"use client";
/**
 * Invite a member to an account (admins): email and role, validated with the `InvitationCreate` contract; then
 * the invitation link, shown once.
 */
import { Button, Group, Modal, Select, Stack, TextInput } from "@mantine/core";
import { Email, InvitationCreate } from "@petstore/contracts";
import { useState } from "react";
import { onValidSubmit } from "../forms/submit";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { maxLengthOf, useZodForm, type ZodForm } from "../use-zod-form";
import { ROLE_OPTIONS } from "./account-meta";
import { InvitationOnce } from "./invitation-once";

interface Invited {
  url: string;
  email: string;
}

/** The "Invite member" dialog of account `accountId`. */
export function InviteMemberModal({
  accountId,
  opened,
  onClose,
}: {
  accountId: string;
  opened: boolean;
  onClose(): void;
}) {
  const [invited, setInvited] = useState<Invited | null>(null);
  const close = () => {
    setInvited(null);
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={invited ? "Send the invitation link" : "Invite a member"}
      centered
      size="lg"
      closeOnClickOutside={!invited}
      closeOnEscape={!invited}
    >
      {invited ? (
        <InvitationOnce url={invited.url} email={invited.email} onDone={close} />
      ) : opened ? (
        <InviteForm accountId={accountId} onInvited={setInvited} onCancel={close} />
      ) : null}
    </Modal>
  );
}

function InviteForm({
  accountId,
  onInvited,
  onCancel,
}: {
  accountId: string;
  onInvited(i: Invited): void;
  onCancel(): void;
}) {
  const trpc = useTRPC();
  const form = useZodForm(InvitationCreate, { email: "", role: "developer" }, (v) => ({
    ...v,
    email: v.email.trim(),
  }));
  const invite = useNotifiedMutation(trpc.accounts.invite.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey()],
    success: (i) => `${i.email} was invited as ${i.role}.`,
    failure: "Could not invite the member",
    form,
    onDone: (i) => onInvited({ url: i.invitationUrl, email: i.email }),
  });
  const submit = onValidSubmit(form, (input) => invite.mutate({ ...input, accountId }));
  return (
    <form onSubmit={submit} noValidate>
      <InviteFields form={form} pending={invite.isPending} onCancel={onCancel} />
    </form>
  );
}

/** The fields of an invitation (email and role) and its buttons; the admin's dialog and the portal's share them. */
export function InviteFields({
  form,
  pending,
  onCancel,
}: {
  form: ZodForm<{ email: string; role: string }, unknown>;
  pending: boolean;
  onCancel(): void;
}) {
  return (
    <Stack>
      <TextInput
        label="Email"
        type="email"
        required
        autoComplete="off"
        value={form.values.email}
        onChange={(e) => form.setValue("email", e.currentTarget.value)}
        error={form.errors.email}
        maxLength={maxLengthOf(Email)}
        data-autofocus
      />
      <Select
        label="Role"
        data={ROLE_OPTIONS}
        value={form.values.role}
        onChange={(v) => form.setValue("role", v ?? "developer")}
        allowDeselect={false}
        error={form.errors.role}
      />
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" loading={pending}>
          Invite
        </Button>
      </Group>
    </Stack>
  );
}
