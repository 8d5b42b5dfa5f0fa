"use client";
/**
 * An API key's actions, in a menu: roll, change plan, scopes or IP allowlist, lift a ban, reset today's usage, mark as
 * leaked, revoke; only those
 * its state allows, destructive ones after confirming. A dialog and its mutation exist only while it is open.
 */
import { Select } from "@mantine/core";
import { ApiKeyPlanChange, ApiKeyScopesChange } from "@petstore/contracts";
import { Hint } from "@/ui/components/page";
import { ActionMenu, ConfirmMutation, FormModal } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { planLabel } from "@/ui/format";
import { numberValue, useZodForm } from "@/ui/forms/use-zod-form";
import { AllowlistDialog } from "@/ui/keys/allowlist-dialog";
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
  | "allowedIps"
  | "plan"
  | "perMinute"
  | "perDay"
  | "effectivePerMinute"
  | "effectivePerDay"
  | "leakedAt"
>;

export function KeyActions({ apiKey, size = "xs" }: { apiKey: KeyActionTarget; size?: "xs" | "sm" }) {
  const trpc = useTRPC();
  const usable = apiKey.state !== "revoked" && apiKey.state !== "expired";
  const label = `${apiKey.prefix}…`;
  const feedback = (success: string, failure: string) => ({
    invalidate: [trpc.apiKeys.pathKey(), trpc.overview.pathKey()],
    success: () => success,
    failure,
  });
  const input = { id: apiKey.id };
  return (
    <ActionMenu
      name={`Actions for ${apiKey.name} (${label})`}
      size={size}
      actions={[
        // A key is rolled once (docs/contract.md section 2): one in its grace period offers no second roll.
        {
          label: "Roll key…",
          hidden: !usable || Boolean(apiKey.rolledToId),
          dialog: (close) => <RollKeyDialog scope="admin" keyInfo={apiKey} onClose={close} />,
        },
        {
          label: "Change plan…",
          hidden: !usable,
          dialog: (close) => <ChangePlanDialog apiKey={apiKey} onClose={close} />,
        },
        {
          label: "Change scopes…",
          hidden: !usable,
          dialog: (close) => <ChangeScopesDialog apiKey={apiKey} onClose={close} />,
        },
        {
          label: "Change IP allowlist…",
          hidden: !usable,
          dialog: (close) => <AllowlistDialog scope="admin" keyInfo={apiKey} onClose={close} />,
        },
        {
          label: "Lift ban…",
          hidden: apiKey.state !== "banned",
          dialog: (close) => (
            <ConfirmMutation
              options={trpc.apiKeys.liftBan.mutationOptions()}
              input={input}
              feedback={feedback(`The ban on ${label} was lifted.`, "Could not lift the ban")}
              onClose={close}
              title={`Lift the ban on "${apiKey.name}"?`}
              message="The key can call the API again at once, within its normal limits."
              confirmLabel="Lift ban"
              confirmColor="blue"
            />
          ),
        },
        {
          label: "Reset today's usage…",
          dialog: (close) => (
            <ConfirmMutation
              options={trpc.apiKeys.resetUsage.mutationOptions()}
              input={input}
              feedback={feedback(`Today's usage of ${label} was reset.`, "Could not reset the usage")}
              onClose={close}
              title={`Reset today's usage of "${apiKey.name}"?`}
              message="Today's request and 429 counts go back to zero, and so does the key's current daily quota."
              confirmLabel="Reset usage"
            />
          ),
        },
        {
          label: "Mark as leaked…",
          hidden: !usable || Boolean(apiKey.leakedAt),
          danger: true,
          dialog: (close) => (
            <ConfirmMutation
              options={trpc.apiKeys.markLeaked.mutationOptions()}
              input={input}
              feedback={{
                invalidate: [trpc.apiKeys.pathKey(), trpc.overview.pathKey()],
                success: (key) =>
                  key.state === "revoked"
                    ? `${label} was marked as leaked and revoked.`
                    : `${label} was marked as leaked.`,
                failure: "Could not mark the key as leaked",
              }}
              onClose={close}
              title={`Mark "${apiKey.name}" as leaked?`}
              message={`Use this when ${label} was exposed (pushed to a repository, pasted in a ticket). As the deployment is configured, it is revoked (or only marked), and its account's owners (the admins for a key outside accounts) get a mail and a key.leaked webhook event.`}
              confirmLabel="Mark as leaked"
            />
          ),
        },
        {
          label: "Revoke…",
          hidden: apiKey.state === "revoked",
          danger: true,
          dialog: (close) => (
            <ConfirmMutation
              options={trpc.apiKeys.revoke.mutationOptions()}
              input={input}
              feedback={feedback(`${label} was revoked.`, "Could not revoke the key")}
              onClose={close}
              title={`Revoke "${apiKey.name}"?`}
              message={`Requests with ${label} will be refused within 5 seconds, on every server. This cannot be undone.`}
              confirmLabel="Revoke key"
            />
          ),
        },
      ]}
    />
  );
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
      <Hint>
        Every server applies the change within 5 seconds. Calls of {k.prefix}… outside its scopes are then
        refused (403 insufficient_scope).
      </Hint>
    </FormModal>
  );
}
