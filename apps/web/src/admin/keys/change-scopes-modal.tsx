"use client";
/**
 * Change a key's scopes (docs/contract.md section 2, "Scopes"). Every server applies the change within 5 s;
 * calls outside the new scopes are then refused with 403 `insufficient_scope`.
 */
import { Button, Group, Modal, Stack, Text } from "@mantine/core";
import { ApiKeyScopesChange } from "@petstore/contracts";
import { onValidSubmit } from "../forms/submit";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { useZodForm } from "../use-zod-form";
import type { ApiKey } from "./key-meta";
import { ScopesField } from "./scopes-field";

export type ScopesChangeTarget = Pick<ApiKey, "id" | "name" | "prefix" | "scopes">;

export function ChangeScopesModal({
  keyInfo,
  opened,
  onClose,
}: {
  keyInfo: ScopesChangeTarget;
  opened: boolean;
  onClose(): void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={`Change the scopes of "${keyInfo.name}"`} centered>
      {opened ? <ChangeScopesForm keyInfo={keyInfo} onDone={onClose} /> : null}
    </Modal>
  );
}

function ChangeScopesForm({ keyInfo, onDone }: { keyInfo: ScopesChangeTarget; onDone(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(ApiKeyScopesChange, { scopes: [...keyInfo.scopes] as string[] }, (v) => ({
    id: keyInfo.id,
    scopes: v.scopes,
  }));
  const change = useNotifiedMutation(trpc.apiKeys.changeScopes.mutationOptions(), {
    invalidate: [trpc.apiKeys.pathKey()],
    success: (key) => `"${key.name}" now has the scopes ${key.scopes.join(", ")}.`,
    failure: "Could not change the scopes",
    form,
    onDone,
  });
  const submit = onValidSubmit(form, (input) => change.mutate(input));
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <ScopesField
          value={form.values.scopes}
          onChange={(v) => form.setValue("scopes", v)}
          error={form.errors.scopes}
        />
        <Text size="sm" c="dimmed">
          Every server applies the change within 5 seconds. Calls of {keyInfo.prefix}… outside its scopes are
          then refused (403 insufficient_scope).
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={change.isPending}>
            Save scopes
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
