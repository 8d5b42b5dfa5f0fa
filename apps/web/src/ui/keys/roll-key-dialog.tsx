"use client";
/** Rolls (rotates) a key, an admin's or a portal member's: how long the old key keeps working, then the new secret once. */
import { Select, Text } from "@mantine/core";
import { ApiKeyRoll, DEFAULT_ROLL_GRACE_SECONDS } from "@petstore/contracts";
import { FormModal } from "../dialogs";
import { useNotifiedMutation } from "../feedback";
import { useZodForm } from "../forms/use-zod-form";
import { KeySecretOnce } from "../secret-once";
import { useTRPC } from "../trpc";
import { type ApiKey, GRACE_OPTIONS } from "./key-meta";

export function RollKeyDialog({
  scope,
  keyInfo,
  onClose,
}: {
  scope: "admin" | "portal";
  keyInfo: Pick<ApiKey, "id" | "name" | "prefix">;
  onClose(): void;
}) {
  const trpc = useTRPC();
  const form = useZodForm(ApiKeyRoll, { graceSeconds: String(DEFAULT_ROLL_GRACE_SECONDS) }, (v) => ({
    id: keyInfo.id,
    graceSeconds: Number(v.graceSeconds),
  }));
  const feedback = {
    success: (key: { prefix: string }) => `${keyInfo.prefix}… was rolled to ${key.prefix}….`,
    failure: "Could not roll the key",
  };
  const admin = useNotifiedMutation(trpc.apiKeys.roll.mutationOptions(), {
    invalidate: [trpc.apiKeys.pathKey()],
    ...feedback,
  });
  const portal = useNotifiedMutation(trpc.portal.keys.roll.mutationOptions(), {
    invalidate: [trpc.portal.pathKey()],
    ...feedback,
  });
  const roll = scope === "admin" ? admin : portal;
  return (
    <FormModal
      title={roll.data ? "Your new API key" : `Roll "${keyInfo.name}"`}
      size="lg"
      onClose={onClose}
      form={form}
      mutation={roll}
      submitLabel="Roll key"
      done={
        roll.data ? (
          <KeySecretOnce secret={roll.data.key} prefix={roll.data.prefix} onDone={onClose} />
        ) : undefined
      }
    >
      <Text size="sm">
        A new key with the same name, plan, limits, scopes and expiry replaces{" "}
        <strong>{keyInfo.prefix}…</strong>. Give its users time to switch.
      </Text>
      <Select
        label="The old key keeps working for"
        data={GRACE_OPTIONS}
        allowDeselect={false}
        {...form.field("graceSeconds")}
      />
    </FormModal>
  );
}
