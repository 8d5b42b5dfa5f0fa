"use client";
/**
 * The dialog that issues an API key, then shows its secret once: an admin's (`apiKeys.create`: plan, Enterprise
 * limits, expiry, scopes) or a portal member's (`portal.keys.create`: the account's plan, expiry, scopes).
 */
import { Group, Select, TextInput } from "@mantine/core";
import { API_KEY_SCOPES, ApiKeyCreate, PortalKeyCreate } from "@petstore/contracts";
import { FormModal } from "../dialogs";
import { useNotifiedMutation } from "../feedback";
import { numberValue, useZodForm } from "../forms/use-zod-form";
import { KeySecretOnce } from "../secret-once";
import { useTRPC } from "../trpc";
import { LimitsFields, ScopesField } from "./key-fields";
import { EXPIRY_OPTIONS, PLAN_OPTIONS } from "./key-meta";

interface Values extends Record<string, unknown> {
  name: string;
  plan: string;
  expiresInSeconds: string;
  perMinute: number | string;
  perDay: number | string;
  scopes: string[];
}

const INITIAL: Values = {
  name: "",
  plan: "free",
  expiresInSeconds: "",
  perMinute: "",
  perDay: "",
  scopes: [...API_KEY_SCOPES],
};

export function KeyDialog({ scope, onClose }: { scope: "admin" | "portal"; onClose(): void }) {
  const trpc = useTRPC();
  const admin = scope === "admin";
  const form = useZodForm(admin ? ApiKeyCreate : PortalKeyCreate, INITIAL, (v) => ({
    name: v.name,
    scopes: v.scopes,
    ...(v.expiresInSeconds ? { expiresInSeconds: Number(v.expiresInSeconds) } : {}),
    ...(admin ? { plan: v.plan } : {}),
    ...(admin && v.plan === "enterprise"
      ? { perMinute: numberValue(v.perMinute), perDay: numberValue(v.perDay) }
      : {}),
  }));
  const issue = useNotifiedMutation(trpc.apiKeys.create.mutationOptions(), {
    invalidate: [trpc.apiKeys.pathKey(), trpc.overview.pathKey()],
    success: (key) => `Key ${key.prefix}… was issued.`,
    failure: "Could not issue the key",
    form,
  });
  const create = useNotifiedMutation(trpc.portal.keys.create.mutationOptions(), {
    invalidate: [trpc.portal.pathKey()],
    success: (key) => `Key ${key.prefix}… was created.`,
    failure: "Could not create the key",
    form,
  });
  const { data: made, isPending } = admin ? issue : create;
  const expires = (
    <Select label="Expires" data={EXPIRY_OPTIONS} allowDeselect={false} {...form.field("expiresInSeconds")} />
  );
  return (
    <FormModal
      title={made ? "Your new API key" : admin ? "Issue an API key" : "Create an API key"}
      size="lg"
      onClose={onClose}
      form={form}
      mutation={{
        mutate: (input) => (admin ? issue.mutate(input as ApiKeyCreate) : create.mutate(input)),
        isPending,
      }}
      submitLabel={admin ? "Issue key" : "Create key"}
      done={made ? <KeySecretOnce secret={made.key} prefix={made.prefix} onDone={onClose} /> : undefined}
    >
      <TextInput
        label="Name"
        description={
          admin
            ? "Who or what uses the key, e.g. the client's name."
            : "What uses the key, e.g. the name of your app."
        }
        required
        {...form.field("name")}
        data-autofocus
      />
      {admin ? (
        <Group grow align="flex-start">
          <Select label="Plan" data={PLAN_OPTIONS} allowDeselect={false} {...form.field("plan")} />
          {expires}
        </Group>
      ) : (
        expires
      )}
      {admin && form.values.plan === "enterprise" ? (
        <LimitsFields perMinute={form.field("perMinute")} perDay={form.field("perDay")} />
      ) : null}
      <ScopesField {...form.field("scopes")} />
    </FormModal>
  );
}
