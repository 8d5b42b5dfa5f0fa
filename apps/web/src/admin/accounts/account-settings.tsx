"use client";
/**
 * What admins change on an account (docs/contract.md section 7), each applying to all its keys within 5 s: its plan
 * (after confirming), its own limits, and suspension (every key then answers 401) or resumption.
 */
import { Button, Group, Select, Stack, Title } from "@mantine/core";
import { AccountLimitsChange } from "@petstore/contracts";
import { useState } from "react";
import { AlertThresholdsEditor } from "@/ui/accounts/alert-thresholds";
import { Hint } from "@/ui/components/page";
import { ConfirmAction, ConfirmDialog } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { formatNumber, planLabel } from "@/ui/format";
import { numberValue, useZodForm } from "@/ui/forms/use-zod-form";
import { LimitsFields, MonthlyQuotaInput, quotaValue } from "@/ui/keys/key-fields";
import { useTRPC } from "@/ui/trpc";
import { ACCOUNT_PLAN_OPTIONS, type AccountDetail } from "./account-meta";

type Plan = AccountDetail["plan"];

/** The plan as a select; another plan is saved after confirming (Enterprise needs the account's own limits first). */
export function AccountPlanSelect({ account }: { account: Pick<AccountDetail, "id" | "name" | "plan"> }) {
  const trpc = useTRPC();
  const [next, setNext] = useState<Plan | null>(null);
  const change = useNotifiedMutation(trpc.accounts.setPlan.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey(), trpc.apiKeys.pathKey()],
    success: (a) => `"${a.name}" is now on the ${planLabel(a.plan)} plan.`,
    failure: (v) =>
      v.plan === "enterprise"
        ? "Could not change the plan: set the account's own limits first"
        : "Could not change the plan",
  });
  return (
    <>
      <Select
        label="Change plan"
        data={ACCOUNT_PLAN_OPTIONS}
        value={account.plan}
        onChange={(v) => (v && v !== account.plan ? setNext(v as Plan) : undefined)}
        allowDeselect={false}
        w={200}
      />
      {next ? (
        <ConfirmDialog
          onClose={() => setNext(null)}
          title={`Move "${account.name}" to the ${planLabel(next)} plan?`}
          message={
            next === "enterprise"
              ? "Every key of the account moves to the Enterprise plan within 5 seconds and shares the account's own limits."
              : `Every key of the account moves to the ${planLabel(next)} plan: its rate limits and key cap apply within 5 seconds.`
          }
          confirmLabel={`Change to ${planLabel(next)}`}
          confirmColor="blue"
          onConfirm={() => change.mutateAsync({ id: account.id, plan: next })}
        />
      ) : null}
    </>
  );
}

const asLimit = (v: number | string) => numberValue(v) ?? null;

/**
 * The account's own limits and monthly quota, shared by its keys instead of the plan's; empty means the plan's.
 */
export function AccountLimitsEditor({
  account,
}: {
  account: Pick<AccountDetail, "id" | "name" | "perMinute" | "perDay" | "perMonth" | "limits">;
}) {
  const trpc = useTRPC();
  const own = account.perMinute !== null || account.perDay !== null || account.perMonth !== null;
  const form = useZodForm(
    AccountLimitsChange,
    {
      perMinute: account.perMinute ?? "",
      perDay: account.perDay ?? "",
      perMonth: account.perMonth ?? "",
    } as Record<"perMinute" | "perDay" | "perMonth", number | string>,
    (v) => ({
      id: account.id,
      perMinute: asLimit(v.perMinute),
      perDay: asLimit(v.perDay),
      perMonth: quotaValue(v.perMonth),
    }),
  );
  const save = useNotifiedMutation(trpc.accounts.setLimits.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey(), trpc.apiKeys.pathKey()],
    success: (_a, v) =>
      v.perMinute === null && v.perDay === null && !v.perMonth
        ? `"${account.name}" uses its plan's limits again.`
        : `"${account.name}" has its own limits: ${formatNumber(v.perMinute)}/min, ${formatNumber(v.perDay)}/day.`,
    failure: "Could not save the limits",
    form,
  });
  const inForce = (n: number | null, unit: string) => (n === null ? "none" : `${formatNumber(n)}/${unit}`);
  return (
    <form onSubmit={form.onSubmit((input) => save.mutate(input))} noValidate aria-labelledby="own-limits">
      <Stack gap="xs">
        <Title order={2} size="h4" id="own-limits">
          Own limits
        </Title>
        <Hint>
          Shared by every key of the account instead of the plan's; leave both empty for the plan's.
          Enterprise has no plan-wide limits, so an Enterprise account needs its own. In force now:{" "}
          {inForce(account.limits.perMinute, "min")}, {inForce(account.limits.perDay, "day")},{" "}
          {inForce(account.limits.perMonth, "month")}
          {own ? " (its own)" : " (the plan's)"}.
        </Hint>
        <LimitsFields perMinute={form.field("perMinute")} perDay={form.field("perDay")} required={false} />
        <MonthlyQuotaInput empty="the plan's quota" {...form.field("perMonth")} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save limits
          </Button>
          {own ? (
            <Button
              variant="default"
              onClick={() => {
                form.reset({ perMinute: "", perDay: "", perMonth: "" });
                save.mutate({ id: account.id, perMinute: null, perDay: null, perMonth: null });
              }}
              loading={save.isPending}
            >
              Use the plan&apos;s limits
            </Button>
          ) : null}
        </Group>
      </Stack>
    </form>
  );
}

/** The account's usage alert thresholds, as its owners set them in the portal. */
export function AccountAlertsEditor({
  account,
}: {
  account: Pick<AccountDetail, "id" | "name" | "alertThresholds">;
}) {
  const trpc = useTRPC();
  const save = useNotifiedMutation(trpc.accounts.setAlertThresholds.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey()],
    success: (a) =>
      a.alertThresholds.length
        ? `"${a.name}" is alerted at ${a.alertThresholds.map((t) => `${t}%`).join(", ")}.`
        : `"${a.name}" gets no usage alerts.`,
    failure: "Could not save the thresholds",
  });
  return (
    <AlertThresholdsEditor
      thresholds={account.alertThresholds}
      save={(thresholds) => save.mutate({ id: account.id, thresholds })}
      saving={save.isPending}
    />
  );
}

/** Suspend (every key answers 401 within 5 s on every instance) or resume, after confirming. */
export function SuspendButton({ account }: { account: Pick<AccountDetail, "id" | "name" | "state"> }) {
  const trpc = useTRPC();
  const suspended = account.state === "suspended";
  const change = useNotifiedMutation(trpc.accounts.setSuspended.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey(), trpc.apiKeys.pathKey()],
    success: (a) => (a.state === "suspended" ? `"${a.name}" was suspended.` : `"${a.name}" was resumed.`),
    failure: suspended ? "Could not resume the account" : "Could not suspend the account",
  });
  return (
    <ConfirmAction
      label={suspended ? "Resume" : "Suspend"}
      size="sm"
      title={`${suspended ? "Resume" : "Suspend"} "${account.name}"?`}
      message={
        suspended
          ? "The account's keys that are neither revoked nor expired work again within 5 seconds, and its members can create keys again."
          : "Every key of the account answers 401 within 5 seconds, on every instance, until the account is resumed. Its members cannot create keys meanwhile."
      }
      confirmLabel={suspended ? "Resume account" : "Suspend account"}
      confirmColor={suspended ? "teal" : "red"}
      onConfirm={() => change.mutateAsync({ id: account.id, suspended: !suspended })}
    />
  );
}
