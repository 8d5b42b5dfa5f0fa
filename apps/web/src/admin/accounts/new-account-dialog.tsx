"use client";
/** A new consumer account (the `AccountCreate` contract, as the CLI): name, plan, owner's email; then their link, once. */
import { Select, TextInput } from "@mantine/core";
import { AccountCreate } from "@petstore/contracts";
import { InvitationLinkOnce } from "@/ui/accounts/invite-dialog";
import { FormModal } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { useZodForm } from "@/ui/forms/use-zod-form";
import { useTRPC } from "@/ui/trpc";
import { ACCOUNT_PLAN_OPTIONS } from "./account-meta";

export function NewAccountDialog({ onClose }: { onClose(): void }) {
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
  });
  const { data: created, variables } = create;
  return (
    <FormModal
      title={created ? "Invite the account's owner" : "New account"}
      size="lg"
      onClose={onClose}
      form={form}
      mutation={create}
      submitLabel="Create account"
      done={
        created ? (
          <InvitationLinkOnce
            url={created.invitationUrl}
            email={variables?.ownerEmail ?? ""}
            onDone={onClose}
          />
        ) : undefined
      }
    >
      <TextInput
        label="Name"
        description="The organization that uses the API, e.g. Acme Pets Ltd."
        required
        {...form.field("name")}
        data-autofocus
      />
      <Select
        label="Plan"
        description="Every key of the account is on this plan."
        data={ACCOUNT_PLAN_OPTIONS}
        allowDeselect={false}
        {...form.field("plan")}
      />
      <TextInput
        label="Owner's email"
        description="The owner gets an invitation link to set up their sign-in."
        type="email"
        required
        autoComplete="off"
        {...form.field("ownerEmail")}
      />
    </FormModal>
  );
}
