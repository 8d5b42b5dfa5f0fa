"use client";
/** Issue an API key (name, plan, expiry, Enterprise limits, scopes), then show its secret once. */
import { Button, Group, Modal, Select, Stack, TextInput } from "@mantine/core";
import { API_KEY_SCOPES, ApiKeyCreate } from "@petstore/contracts";
import { useState } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { onValidSubmit } from "../forms/submit";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { maxLengthOf, numberValue, useZodForm } from "../use-zod-form";
import { EXPIRY_OPTIONS, PLAN_OPTIONS } from "./key-meta";
import { LimitsFields } from "./limits-fields";
import { ScopesField } from "./scopes-field";
import { SecretOnce } from "./secret-once";

/** What the form hands back: the new key's secret (shown once) and display prefix. */
type IssuedKey = Pick<RouterOutputs["apiKeys"]["create"], "key" | "prefix">;

export function IssueKeyModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const close = () => {
    setIssued(null);
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={issued ? "Your new API key" : "Issue an API key"}
      centered
      size="lg"
      closeOnClickOutside={!issued}
      closeOnEscape={!issued}
    >
      {issued ? (
        <SecretOnce secret={issued.key} prefix={issued.prefix} onDone={close} />
      ) : opened ? (
        <IssueKeyForm onIssued={setIssued} onCancel={close} />
      ) : null}
    </Modal>
  );
}

function IssueKeyForm({ onIssued, onCancel }: { onIssued(key: IssuedKey): void; onCancel(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(
    ApiKeyCreate,
    { name: "", plan: "free", expires: "", perMinute: "", perDay: "", scopes: [...API_KEY_SCOPES] } as {
      name: string;
      plan: string;
      expires: string;
      perMinute: number | string;
      perDay: number | string;
      scopes: string[];
    },
    (v) => ({
      name: v.name,
      plan: v.plan,
      scopes: v.scopes,
      ...(v.expires ? { expiresInSeconds: Number(v.expires) } : {}),
      ...(v.plan === "enterprise"
        ? { perMinute: numberValue(v.perMinute), perDay: numberValue(v.perDay) }
        : {}),
    }),
  );
  const create = useNotifiedMutation(trpc.apiKeys.create.mutationOptions(), {
    invalidate: [trpc.apiKeys.pathKey(), trpc.overview.pathKey()],
    success: (key) => `Key ${key.prefix}… was issued.`,
    failure: "Could not issue the key",
    form,
    onDone: onIssued,
  });
  const submit = onValidSubmit(form, (input) => create.mutate(input));
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="Who or what uses the key, e.g. the client's name."
          required
          value={form.values.name}
          onChange={(e) => form.setValue("name", e.currentTarget.value)}
          error={form.errors.name}
          maxLength={maxLengthOf(ApiKeyCreate.shape.name)}
          data-autofocus
        />
        <Group grow align="flex-start">
          <Select
            label="Plan"
            data={PLAN_OPTIONS}
            value={form.values.plan}
            onChange={(v) => form.setValue("plan", v ?? "free")}
            allowDeselect={false}
            error={form.errors.plan}
          />
          <Select
            label="Expires"
            data={EXPIRY_OPTIONS}
            value={form.values.expires}
            onChange={(v) => form.setValue("expires", v ?? "")}
            allowDeselect={false}
            error={form.errors.expiresInSeconds}
          />
        </Group>
        {form.values.plan === "enterprise" ? (
          <LimitsFields values={form.values} errors={form.errors} onChange={(k, v) => form.setValue(k, v)} />
        ) : null}
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
            Issue key
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
