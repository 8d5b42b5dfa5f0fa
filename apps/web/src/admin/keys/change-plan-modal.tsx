"use client";
/**
 * Change a key's plan. Enterprise needs custom limits: the fields start from the key's current effective
 * limits (its own, else its plan's), so switching to Enterprise keeps what the key has unless changed.
 * Other plans use the plan's limits.
 */
import { Button, Group, Modal, Select, Stack } from "@mantine/core";
import { ApiKeyPlanChange } from "@petstore/contracts";
import { planLabel } from "../format";
import { onValidSubmit } from "../forms/submit";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { numberValue, useZodForm } from "../use-zod-form";
import { type ApiKey, PLAN_OPTIONS } from "./key-meta";
import { LimitsFields } from "./limits-fields";

export type PlanChangeTarget = Pick<
  ApiKey,
  "id" | "name" | "plan" | "perMinute" | "perDay" | "effectivePerMinute" | "effectivePerDay"
>;

export function ChangePlanModal({
  keyInfo,
  opened,
  onClose,
}: {
  keyInfo: PlanChangeTarget;
  opened: boolean;
  onClose(): void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={`Change the plan of "${keyInfo.name}"`} centered>
      {opened ? <ChangePlanForm keyInfo={keyInfo} onDone={onClose} /> : null}
    </Modal>
  );
}

function ChangePlanForm({ keyInfo, onDone }: { keyInfo: PlanChangeTarget; onDone(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(
    ApiKeyPlanChange,
    {
      plan: keyInfo.plan as string,
      perMinute: keyInfo.perMinute ?? keyInfo.effectivePerMinute ?? "",
      perDay: keyInfo.perDay ?? keyInfo.effectivePerDay ?? "",
    } as {
      plan: string;
      perMinute: number | string;
      perDay: number | string;
    },
    (v) => ({
      id: keyInfo.id,
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
    onDone,
  });
  const submit = onValidSubmit(form, (input) => change.mutate(input));
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Select
          label="Plan"
          data={PLAN_OPTIONS}
          value={form.values.plan}
          onChange={(v) => form.setValue("plan", v ?? "free")}
          allowDeselect={false}
          data-autofocus
        />
        {form.values.plan === "enterprise" ? (
          <LimitsFields values={form.values} errors={form.errors} onChange={(k, v) => form.setValue(k, v)} />
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={change.isPending}>
            Save plan
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
