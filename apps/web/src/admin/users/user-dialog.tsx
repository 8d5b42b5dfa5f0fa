"use client";
/** A new staff member or admin, validated with the `UserCreate` contract (the CLI's rules). */
import { PasswordInput, SegmentedControl, Stack, Text, TextInput } from "@mantine/core";
import { UserCreate } from "@petstore/contracts";
import { Hint } from "@/ui/components/page";
import { FormModal } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { useZodForm } from "@/ui/forms/use-zod-form";
import { useTRPC } from "@/ui/trpc";

export function UserDialog({ onClose }: { onClose(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(UserCreate, { email: "", name: "", role: "staff", password: "" }, (v) => ({
    ...v,
    email: v.email.trim(),
  }));
  const create = useNotifiedMutation(trpc.users.create.mutationOptions(), {
    invalidate: [trpc.users.pathKey()],
    success: (user) => `${user.name} (${user.role}) can now sign in as ${user.email}.`,
    failure: "Could not create the user",
    form,
    onDone: onClose,
  });
  return (
    <FormModal title="New user" onClose={onClose} form={form} mutation={create} submitLabel="Create user">
      <TextInput label="Name" required {...form.field("name")} data-autofocus />
      <TextInput label="Email" type="email" required autoComplete="off" {...form.field("email")} />
      <Stack gap={4}>
        <Text size="sm" fw={500} id="new-user-role">
          Role
        </Text>
        <SegmentedControl
          aria-labelledby="new-user-role"
          data={[
            { value: "staff", label: "Staff" },
            { value: "admin", label: "Admin" },
          ]}
          value={form.values.role}
          onChange={(v) => form.setValue("role", v)}
        />
        <Hint size="xs">
          Staff manage animals and categories; admins also manage API keys, plans, users and the audit log.
        </Hint>
      </Stack>
      <PasswordInput
        label="Initial password"
        description="At least 12 characters. Share it with the person securely."
        required
        autoComplete="new-password"
        {...form.field("password")}
      />
    </FormModal>
  );
}
