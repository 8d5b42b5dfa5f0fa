"use client";
/** Create a key of the account (name, scopes, expiry; the plan is the account's), then show its secret once. */
import { Button, Group, Modal, Select, Stack, TextInput } from "@mantine/core";
import { API_KEY_SCOPES, PortalKeyCreate } from "@petstore/contracts";
import { useState } from "react";
import { onValidSubmit } from "@/admin/forms/submit";
import { EXPIRY_OPTIONS } from "@/admin/keys/key-meta";
import { ScopesField } from "@/admin/keys/scopes-field";
import { SecretOnce } from "@/admin/keys/secret-once";
import { useTRPC } from "@/admin/trpc";
import { useNotifiedMutation } from "@/admin/use-notified-mutation";
import { maxLengthOf, useZodForm } from "@/admin/use-zod-form";
import type { RouterOutputs } from "@/server/trpc/router";

type CreatedKey = Pick<RouterOutputs["portal"]["keys"]["create"], "key" | "prefix">;

export function CreateKeyModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const close = () => {
    setCreated(null);
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={created ? "Your new API key" : "Create an API key"}
      centered
      size="lg"
      closeOnClickOutside={!created}
      closeOnEscape={!created}
    >
      {created ? (
        <SecretOnce secret={created.key} prefix={created.prefix} onDone={close} />
      ) : opened ? (
        <CreateKeyForm onCreated={setCreated} onCancel={close} />
      ) : null}
    </Modal>
  );
}

function CreateKeyForm({ onCreated, onCancel }: { onCreated(key: CreatedKey): void; onCancel(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(
    PortalKeyCreate,
    { name: "", expires: "", scopes: [...API_KEY_SCOPES] as string[] },
    (v) => ({
      name: v.name,
      scopes: v.scopes,
      ...(v.expires ? { expiresInSeconds: Number(v.expires) } : {}),
    }),
  );
  const create = useNotifiedMutation(trpc.portal.keys.create.mutationOptions(), {
    invalidate: [trpc.portal.pathKey()],
    success: (key) => `Key ${key.prefix}… was created.`,
    failure: "Could not create the key",
    form,
    onDone: onCreated,
  });
  const submit = onValidSubmit(form, (input) => create.mutate(input));
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="What uses the key, e.g. the name of your app."
          required
          value={form.values.name}
          onChange={(e) => form.setValue("name", e.currentTarget.value)}
          error={form.errors.name}
          maxLength={maxLengthOf(PortalKeyCreate.shape.name)}
          data-autofocus
        />
        <Select
          label="Expires"
          data={EXPIRY_OPTIONS}
          value={form.values.expires}
          onChange={(v) => form.setValue("expires", v ?? "")}
          allowDeselect={false}
          error={form.errors.expiresInSeconds}
        />
        <ScopesField
          value={form.values.scopes}
          onChange={(v) => form.setValue("scopes", v)}
          error={form.errors.scopes}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create key
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
