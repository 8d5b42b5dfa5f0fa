"use client";
/**
 * An API key's actions, in a menu: roll, change plan or scopes, lift a ban, reset today's usage, revoke; only those
 * its state allows, destructive ones after confirming. A dialog and its mutation exist only while it is open.
 */
import { Button, Menu, Select, Text } from "@mantine/core";
import { ApiKeyPlanChange, ApiKeyScopesChange } from "@petstore/contracts";
import type { UseMutationOptions } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog, FormModal } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { planLabel } from "@/ui/format";
import { numberValue, useZodForm } from "@/ui/forms/use-zod-form";
import { LimitsFields, ScopesField } from "@/ui/keys/key-fields";
import { type ApiKey, PLAN_OPTIONS } from "@/ui/keys/key-meta";
import { RollKeyDialog } from "@/ui/keys/roll-key-dialog";
import { useTRPC } from "@/ui/trpc";

export type KeyActionTarget = Pick<
  ApiKey,
  | "id"
  | "name"
  | "prefix"
  | "state"
  | "rolledToId"
  | "scopes"
  | "plan"
  | "perMinute"
  | "perDay"
  | "effectivePerMinute"
  | "effectivePerDay"
>;

type Open = "roll" | "plan" | "scopes" | "unban" | "reset" | "revoke" | null;

export function KeyActions({ apiKey, size = "xs" }: { apiKey: KeyActionTarget; size?: "xs" | "sm" }) {
  const [open, setOpen] = useState<Open>(null);
  const usable = apiKey.state !== "revoked" && apiKey.state !== "expired";
  return (
    <>
      <Menu position="bottom-end" withinPortal shadow="md">
        <Menu.Target>
          <Button size={size} variant="default" aria-label={`Actions for ${apiKey.name} (${apiKey.prefix}…)`}>
            Actions
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {/* A key is rolled once (docs/contract.md section 2): one in its grace period offers no second roll. */}
          {usable && !apiKey.rolledToId ? (
            <Menu.Item onClick={() => setOpen("roll")}>Roll key…</Menu.Item>
          ) : null}
          {usable ? <Menu.Item onClick={() => setOpen("plan")}>Change plan…</Menu.Item> : null}
          {usable ? <Menu.Item onClick={() => setOpen("scopes")}>Change scopes…</Menu.Item> : null}
          {apiKey.state === "banned" ? (
            <Menu.Item onClick={() => setOpen("unban")}>Lift ban…</Menu.Item>
          ) : null}
          <Menu.Item onClick={() => setOpen("reset")}>Reset today&apos;s usage…</Menu.Item>
          {apiKey.state !== "revoked" ? (
            <>
              <Menu.Divider />
              <Menu.Item color="red.9" onClick={() => setOpen("revoke")}>
                Revoke…
              </Menu.Item>
            </>
          ) : null}
        </Menu.Dropdown>
      </Menu>
      {open ? <KeyDialog open={open} apiKey={apiKey} onClose={() => setOpen(null)} /> : null}
    </>
  );
}

function KeyDialog({
  open,
  apiKey,
  onClose,
}: {
  open: NonNullable<Open>;
  apiKey: KeyActionTarget;
  onClose(): void;
}) {
  const trpc = useTRPC();
  const label = `${apiKey.prefix}…`;
  const confirm = { id: apiKey.id, onClose };
  switch (open) {
    case "roll":
      return <RollKeyDialog scope="admin" keyInfo={apiKey} onClose={onClose} />;
    case "plan":
      return <ChangePlanDialog apiKey={apiKey} onClose={onClose} />;
    case "scopes":
      return <ChangeScopesDialog apiKey={apiKey} onClose={onClose} />;
    case "revoke":
      return (
        <ConfirmMutation
          {...confirm}
          options={trpc.apiKeys.revoke.mutationOptions()}
          success={`${label} was revoked.`}
          failure="Could not revoke the key"
          title={`Revoke "${apiKey.name}"?`}
          message={`Requests with ${label} will be refused within 5 seconds, on every server. This cannot be undone.`}
          confirmLabel="Revoke key"
        />
      );
    case "unban":
      return (
        <ConfirmMutation
          {...confirm}
          options={trpc.apiKeys.liftBan.mutationOptions()}
          success={`The ban on ${label} was lifted.`}
          failure="Could not lift the ban"
          title={`Lift the ban on "${apiKey.name}"?`}
          message="The key can call the API again at once, within its normal limits."
          confirmLabel="Lift ban"
          confirmColor="blue"
        />
      );
    case "reset":
      return (
        <ConfirmMutation
          {...confirm}
          options={trpc.apiKeys.resetUsage.mutationOptions()}
          success={`Today's usage of ${label} was reset.`}
          failure="Could not reset the usage"
          title={`Reset today's usage of "${apiKey.name}"?`}
          message="Today's request and 429 counts go back to zero, and so does the key's current daily quota."
          confirmLabel="Reset usage"
        />
      );
  }
}

/** A confirmation that runs one mutation on key `id`, then refreshes the keys and the overview. */
function ConfirmMutation<TData, TError>({
  id,
  options,
  success,
  failure,
  ...dialog
}: {
  id: string;
  options: UseMutationOptions<TData, TError, { id: string }, unknown>;
  success: string;
  failure: string;
  onClose(): void;
  title: string;
  message: string;
  confirmLabel: string;
  confirmColor?: string;
}) {
  const trpc = useTRPC();
  const mutation = useNotifiedMutation(options, {
    invalidate: [trpc.apiKeys.pathKey(), trpc.overview.pathKey()],
    success: () => success,
    failure,
  });
  return <ConfirmDialog {...dialog} onConfirm={() => mutation.mutateAsync({ id })} />;
}

/** Enterprise needs custom limits, which start from the key's current ones; other plans use the plan's. */
function ChangePlanDialog({ apiKey: k, onClose }: { apiKey: KeyActionTarget; onClose(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(
    ApiKeyPlanChange,
    {
      plan: k.plan as string,
      perMinute: (k.perMinute ?? k.effectivePerMinute ?? "") as number | string,
      perDay: (k.perDay ?? k.effectivePerDay ?? "") as number | string,
    },
    (v) => ({
      id: k.id,
      plan: v.plan,
      perMinute: v.plan === "enterprise" ? numberValue(v.perMinute) : null,
      perDay: v.plan === "enterprise" ? numberValue(v.perDay) : null,
    }),
  );
  const change = useNotifiedMutation(trpc.apiKeys.changePlan.mutationOptions(), {
    invalidate: [trpc.apiKeys.pathKey(), trpc.overview.pathKey()],
    success: (key) => `"${key.name}" is now on the ${planLabel(key.plan)} plan.`,
    failure: "Could not change the plan",
    form,
    onDone: onClose,
  });
  return (
    <FormModal
      title={`Change the plan of "${k.name}"`}
      onClose={onClose}
      form={form}
      mutation={change}
      submitLabel="Save plan"
    >
      <Select label="Plan" data={PLAN_OPTIONS} allowDeselect={false} {...form.field("plan")} data-autofocus />
      {form.values.plan === "enterprise" ? (
        <LimitsFields perMinute={form.field("perMinute")} perDay={form.field("perDay")} />
      ) : null}
    </FormModal>
  );
}

/** New scopes (docs/contract.md section 2, "Scopes"), which every server applies within 5 s. */
function ChangeScopesDialog({ apiKey: k, onClose }: { apiKey: KeyActionTarget; onClose(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(ApiKeyScopesChange, { scopes: [...k.scopes] as string[] }, (v) => ({
    id: k.id,
    scopes: v.scopes,
  }));
  const change = useNotifiedMutation(trpc.apiKeys.changeScopes.mutationOptions(), {
    invalidate: [trpc.apiKeys.pathKey()],
    success: (key) => `"${key.name}" now has the scopes ${key.scopes.join(", ")}.`,
    failure: "Could not change the scopes",
    form,
    onDone: onClose,
  });
  return (
    <FormModal
      title={`Change the scopes of "${k.name}"`}
      onClose={onClose}
      form={form}
      mutation={change}
      submitLabel="Save scopes"
    >
      <ScopesField {...form.field("scopes")} />
      <Text size="sm" c="dimmed">
        Every server applies the change within 5 seconds. Calls of {k.prefix}… outside its scopes are then
        refused (403 insufficient_scope).
      </Text>
    </FormModal>
  );
}
