"use client";
/**
 * New consumer account (admins): name, plan and the owner's email, validated with the `AccountCreate` contract
 * (the CLI uses the same rules); then the owner's invitation link, shown once.
 */
import { Button, Group, Modal, Select, Stack, TextInput } from "@mantine/core";
import { AccountCreate, AccountName, Email } from "@petstore/contracts";
import { useState } from "react";
import { onValidSubmit } from "../forms/submit";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { maxLengthOf, useZodForm } from "../use-zod-form";
import { ACCOUNT_PLAN_OPTIONS } from "./account-meta";
import { InvitationOnce } from "./invitation-once";

interface Created {
  url: string;
  email: string;
}

/** The "New account" dialog: the form, then the owner's invitation link once. */
export function NewAccountModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const [created, setCreated] = useState<Created | null>(null);
  const close = () => {
    setCreated(null);
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={created ? "Invite the account's owner" : "New account"}
      centered
      size="lg"
      closeOnClickOutside={!created}
      closeOnEscape={!created}
    >
      {created ? (
        <InvitationOnce url={created.url} email={created.email} onDone={close} />
      ) : opened ? (
        <NewAccountForm onCreated={setCreated} onCancel={close} />
      ) : null}
    </Modal>
  );
}

function NewAccountForm({ onCreated, onCancel }: { onCreated(c: Created): void; onCancel(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(AccountCreate, { name: "", plan: "free", ownerEmail: "" }, (v) => ({
    ...v,
    ownerEmail: v.ownerEmail.trim(),
  }));
  const create = useNotifiedMutation(trpc.accounts.create.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey()],
    success: (_account, input) => `Account "${input.name}" was created.`,
    failure: "Could not create the account",
    form,
    onDone: (account, input) => onCreated({ url: account.invitationUrl, email: input.ownerEmail }),
  });
  const submit = onValidSubmit(form, (input) => create.mutate(input));
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="The organization that uses the API, e.g. Acme Pets Ltd."
          required
          value={form.values.name}
          onChange={(e) => form.setValue("name", e.currentTarget.value)}
          error={form.errors.name}
          maxLength={maxLengthOf(AccountName)}
          data-autofocus
        />
        <Select
          label="Plan"
          description="Every key of the account is on this plan."
          data={ACCOUNT_PLAN_OPTIONS}
          value={form.values.plan}
          onChange={(v) => form.setValue("plan", v ?? "free")}
          allowDeselect={false}
          error={form.errors.plan}
        />
        <TextInput
          label="Owner's email"
          description="The owner gets an invitation link to set up their sign-in."
          type="email"
          required
          autoComplete="off"
          value={form.values.ownerEmail}
          onChange={(e) => form.setValue("ownerEmail", e.currentTarget.value)}
          error={form.errors.ownerEmail}
          maxLength={maxLengthOf(Email)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create account
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
