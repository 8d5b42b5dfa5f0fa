"use client";
/**
 * Plans (admins): per-minute and per-day limits of Free, Pro and Business; Enterprise limits are set per
 * key. Saving asks first, saying how many working keys the change affects (they pick it up within 5 s).
 */
import { Alert, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { PlanLimitsChange } from "@petstore/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { RouterInputs, RouterOutputs } from "@/server/trpc/router";
import { ConfirmDialog } from "../components/confirm-action";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { notifyError } from "../feedback";
import { formatNumber, planLabel } from "../format";
import { LimitsFields } from "../keys/limits-fields";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { numberValue, useZodForm } from "../use-zod-form";
import { KeyCaps } from "./key-caps";

type Plan = RouterOutputs["plans"]["list"][number];
type EditablePlan = Plan & { name: RouterInputs["plans"]["update"]["plan"] };
type Change = RouterInputs["plans"]["update"];

const editable = (p: Plan): p is EditablePlan => p.name !== "enterprise";

function PlanCard({ plan }: { plan: EditablePlan }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<{ change: Change; keys: number } | null>(null);
  const form = useZodForm(
    PlanLimitsChange,
    { perMinute: plan.perMinute ?? "", perDay: plan.perDay ?? "" } as {
      perMinute: number | string;
      perDay: number | string;
    },
    (v) => ({ plan: plan.name, perMinute: numberValue(v.perMinute), perDay: numberValue(v.perDay) }),
  );
  const update = useNotifiedMutation(trpc.plans.update.mutationOptions(), {
    invalidate: [trpc.plans.pathKey(), trpc.apiKeys.pathKey()],
    success: (saved) =>
      `${planLabel(saved.name)}: ${formatNumber(saved.perMinute)} per minute, ${formatNumber(saved.perDay)} per day.`,
    failure: `Could not save the ${planLabel(plan.name)} plan`,
    form,
  });
  const dirty =
    numberValue(form.values.perMinute) !== plan.perMinute || numberValue(form.values.perDay) !== plan.perDay;
  const [checking, setChecking] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const change = form.validate();
    if (!change) return;
    setChecking(true);
    try {
      const { keys } = await queryClient.fetchQuery({
        ...trpc.plans.affectedKeys.queryOptions({ plan: plan.name }),
        staleTime: 0,
      });
      setPending({ change, keys });
    } catch (error) {
      notifyError("Could not count the keys on this plan", error);
    } finally {
      setChecking(false);
    }
  };
  const label = planLabel(plan.name);
  return (
    <Paper
      withBorder
      p="md"
      component="form"
      onSubmit={submit}
      noValidate
      aria-labelledby={`plan-${plan.name}`}
    >
      <Stack gap="sm">
        <Title order={2} size="h4" id={`plan-${plan.name}`}>
          {label}
        </Title>
        <LimitsFields
          values={form.values}
          errors={form.errors}
          onChange={(k, v) => form.setValue(k, v)}
          dayLabel="Requests per day (UTC)"
          required={false}
          stacked
        />
        <Group justify="flex-end">
          <Button type="submit" loading={checking || update.isPending} disabled={!dirty}>
            Save {label}
          </Button>
        </Group>
      </Stack>
      <ConfirmDialog
        opened={pending !== null}
        onClose={() => setPending(null)}
        title={`Change the ${label} plan's limits?`}
        message={
          pending
            ? `${formatNumber(pending.change.perMinute)} per minute and ${formatNumber(pending.change.perDay)} per day will apply to ${
                pending.keys === 1 ? "1 working key" : `${formatNumber(pending.keys)} working keys`
              } on the ${label} plan within 5 seconds${pending.keys === 0 ? " (no key uses these limits now)" : ""}. Keys with custom limits keep theirs.`
            : ""
        }
        confirmLabel={`Change limits of ${pending?.keys === 1 ? "1 key" : `${formatNumber(pending?.keys ?? 0)} keys`}`}
        confirmColor="blue"
        onConfirm={async () => {
          if (pending) await update.mutateAsync(pending.change);
        }}
      />
    </Paper>
  );
}

export function PlansPage() {
  const trpc = useTRPC();
  const plans = useQuery(trpc.plans.list.queryOptions());
  return (
    <>
      <PageHeader
        title="Plans"
        description="Rate limits per API key, by plan. Keys pick up a change within 5 seconds."
      />
      <QueryState query={plans} errorTitle="Could not load the plans" skeletonRows={3}>
        {(data) => (
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              {data.filter(editable).map((p) => (
                <PlanCard key={`${p.name}-${p.perMinute}-${p.perDay}`} plan={p} />
              ))}
            </SimpleGrid>
            <Alert color="blue" title="Enterprise">
              <Text size="sm">
                Enterprise keys have their own limits, set when the key is issued or on the key&apos;s page.
              </Text>
            </Alert>
            <KeyCaps plans={data} />
          </Stack>
        )}
      </QueryState>
    </>
  );
}
