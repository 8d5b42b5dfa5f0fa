"use client";
/** Change a key's plan; Enterprise needs custom limits, other plans use the plan's limits. */
import { Button, Group, Modal, Select, Stack } from "@mantine/core";
import { ApiKeyPlanChange } from "@petstore/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { notifyError, notifySuccess } from "../feedback";
import { planLabel } from "../format";
import { useTRPC } from "../trpc";
import { useZodForm } from "../use-zod-form";
import { PLAN_OPTIONS, type Plan } from "./key-meta";
import { LimitsFields, limitValue } from "./limits-fields";

export interface PlanChangeTarget {
  id: string;
  name: string;
  plan: Plan;
  perMinute: number | null;
  perDay: number | null;
}

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
  const queryClient = useQueryClient();
  const form = useZodForm(
    ApiKeyPlanChange,
    { plan: keyInfo.plan as string, perMinute: keyInfo.perMinute ?? "", perDay: keyInfo.perDay ?? "" } as {
      plan: string;
      perMinute: number | string;
      perDay: number | string;
    },
    (v) => ({
      id: keyInfo.id,
      plan: v.plan,
      perMinute: v.plan === "enterprise" ? limitValue(v.perMinute) : null,
      perDay: v.plan === "enterprise" ? limitValue(v.perDay) : null,
    }),
  );
  const change = useMutation(
    trpc.apiKeys.changePlan.mutationOptions({
      onSuccess: async (key) => {
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.overview.pathKey() });
        notifySuccess(`"${key.name}" is now on the ${planLabel(key.plan)} plan.`);
        onDone();
      },
      onError: (error) => {
        if (!form.setServerErrors(error)) notifyError("Could not change the plan", error);
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = form.validate();
    if (input) change.mutate(input);
  };
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
