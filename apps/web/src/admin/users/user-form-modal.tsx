"use client";
/** New staff member or admin, validated with the `UserCreate` contract (the CLI uses the same rules). */
import { Button, Group, Modal, PasswordInput, SegmentedControl, Stack, Text, TextInput } from "@mantine/core";
import { Email, Password, UserCreate, UserName } from "@petstore/contracts";
import { onValidSubmit } from "../forms/submit";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { maxLengthOf, useZodForm } from "../use-zod-form";

export function UserFormModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="New user" centered>
      {opened ? <UserForm onDone={onClose} /> : null}
    </Modal>
  );
}

function UserForm({ onDone }: { onDone(): void }) {
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
    onDone,
  });
  const submit = onValidSubmit(form, (input) => create.mutate(input));
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          required
          value={form.values.name}
          onChange={(e) => form.setValue("name", e.currentTarget.value)}
          error={form.errors.name}
          maxLength={maxLengthOf(UserName)}
          data-autofocus
        />
        <TextInput
          label="Email"
          type="email"
          required
          autoComplete="off"
          value={form.values.email}
          onChange={(e) => form.setValue("email", e.currentTarget.value)}
          error={form.errors.email}
          maxLength={maxLengthOf(Email)}
        />
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
          <Text size="xs" c="dimmed">
            Staff manage animals and categories; admins also manage API keys, plans, users and the audit log.
          </Text>
        </Stack>
        <PasswordInput
          label="Initial password"
          description="At least 12 characters. Share it with the person securely."
          required
          autoComplete="new-password"
          value={form.values.password}
          onChange={(e) => form.setValue("password", e.currentTarget.value)}
          error={form.errors.password}
          maxLength={maxLengthOf(Password)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create user
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
