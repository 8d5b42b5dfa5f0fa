"use client";
/** Plans (admins): per-minute and per-day limits of Free, Pro and Business; Enterprise limits are set per key. */
import { Alert, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { PlanLimitsChange } from "@petstore/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { notifyError, notifySuccess } from "../feedback";
import { formatNumber, planLabel } from "../format";
import { useTRPC } from "../trpc";
import { useZodForm } from "../use-zod-form";

type EditablePlan = { name: "free" | "pro" | "business"; perMinute: number | null; perDay: number | null };

function PlanCard({ plan }: { plan: EditablePlan }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(
    PlanLimitsChange,
    { perMinute: plan.perMinute ?? "", perDay: plan.perDay ?? "" } as {
      perMinute: number | string;
      perDay: number | string;
    },
    (v) => ({
      plan: plan.name,
      perMinute: v.perMinute === "" ? undefined : Number(v.perMinute),
      perDay: v.perDay === "" ? undefined : Number(v.perDay),
    }),
  );
  const update = useMutation(
    trpc.plans.update.mutationOptions({
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries({ queryKey: trpc.plans.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.pathKey() });
        notifySuccess(
          `${planLabel(saved.name)}: ${formatNumber(saved.perMinute)} per minute, ${formatNumber(saved.perDay)} per day.`,
        );
      },
      onError: (error) => {
        if (!form.setServerErrors(error))
          notifyError(`Could not save the ${planLabel(plan.name)} plan`, error);
      },
    }),
  );
  const dirty =
    Number(form.values.perMinute) !== plan.perMinute || Number(form.values.perDay) !== plan.perDay;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = form.validate();
    if (input) update.mutate(input);
  };
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
          {planLabel(plan.name)}
        </Title>
        <NumberInput
          label="Requests per minute"
          min={1}
          allowDecimal={false}
          allowNegative={false}
          thousandSeparator=","
          value={form.values.perMinute}
          onChange={(v) => form.setValue("perMinute", v)}
          error={form.errors.perMinute}
        />
        <NumberInput
          label="Requests per day (UTC)"
          min={1}
          allowDecimal={false}
          allowNegative={false}
          thousandSeparator=","
          value={form.values.perDay}
          onChange={(v) => form.setValue("perDay", v)}
          error={form.errors.perDay}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={update.isPending} disabled={!dirty}>
            Save {planLabel(plan.name)}
          </Button>
        </Group>
      </Stack>
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
              {data
                .filter((p): p is EditablePlan & { name: EditablePlan["name"] } => p.name !== "enterprise")
                .map((p) => (
                  <PlanCard key={`${p.name}-${p.perMinute}-${p.perDay}`} plan={p} />
                ))}
            </SimpleGrid>
            <Alert color="blue" title="Enterprise">
              <Text size="sm">
                Enterprise keys have their own limits, set when the key is issued or on the key&apos;s page.
              </Text>
            </Alert>
          </Stack>
        )}
      </QueryState>
    </>
  );
}
