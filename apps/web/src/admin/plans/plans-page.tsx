"use client";
/**
 * Plans (admins): the per-minute and per-day limits and the monthly quota of Free, Pro and Business (Enterprise
 * limits are per key or account), saved after a confirmation naming the working keys it affects; and each plan's cap on an account's keys.
 */
import { Alert, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { PlanLimitsChange } from "@petstore/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { RouterInputs, RouterOutputs } from "@/server/trpc/router";
import { Hint, PageHeader } from "@/ui/components/page";
import { QueryState } from "@/ui/components/query-state";
import { ConfirmDialog } from "@/ui/dialogs";
import { notifyError, useNotifiedMutation } from "@/ui/feedback";
import { formatNumber, planLabel } from "@/ui/format";
import { numberValue, useZodForm } from "@/ui/forms/use-zod-form";
import { LimitsFields, MonthlyQuotaInput, quotaValue } from "@/ui/keys/key-fields";
import { useTRPC } from "@/ui/trpc";

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
    { perMinute: plan.perMinute ?? "", perDay: plan.perDay ?? "", perMonth: plan.perMonth ?? "" } as Record<
      "perMinute" | "perDay" | "perMonth",
      number | string
    >,
    (v) => ({
      plan: plan.name,
      perMinute: numberValue(v.perMinute),
      perDay: numberValue(v.perDay),
      perMonth: quotaValue(v.perMonth),
    }),
  );
  const update = useNotifiedMutation(trpc.plans.update.mutationOptions(), {
    invalidate: [trpc.plans.pathKey(), trpc.apiKeys.pathKey()],
    success: (saved) =>
      `${planLabel(saved.name)}: ${formatNumber(saved.perMinute)} per minute, ${formatNumber(saved.perDay)} per day, ${
        saved.perMonth === null ? "no monthly quota" : `${formatNumber(saved.perMonth)} per month`
      }.`,
    failure: `Could not save the ${planLabel(plan.name)} plan`,
    form,
  });
  const dirty =
    numberValue(form.values.perMinute) !== plan.perMinute ||
    numberValue(form.values.perDay) !== plan.perDay ||
    quotaValue(form.values.perMonth) !== plan.perMonth;
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
          perMinute={form.field("perMinute")}
          perDay={form.field("perDay")}
          dayLabel="Requests per day (UTC)"
          required={false}
          stacked
        />
        <MonthlyQuotaInput empty="no quota" {...form.field("perMonth")} />
        <Group justify="flex-end">
          <Button type="submit" loading={checking || update.isPending} disabled={!dirty}>
            Save {label}
          </Button>
        </Group>
      </Stack>
      {pending ? (
        <ConfirmDialog
          onClose={() => setPending(null)}
          title={`Change the ${label} plan's limits?`}
          message={`${formatNumber(pending.change.perMinute)} per minute, ${formatNumber(pending.change.perDay)} per day and ${
            pending.change.perMonth == null
              ? "no monthly quota"
              : `${formatNumber(pending.change.perMonth)} per month`
          } will apply to ${
            pending.keys === 1 ? "1 working key" : `${formatNumber(pending.keys)} working keys`
          } on the ${label} plan within 5 seconds${pending.keys === 0 ? " (no key uses these limits now)" : ""}. Keys with custom limits keep theirs.`}
          confirmLabel={`Change limits of ${pending.keys === 1 ? "1 key" : `${formatNumber(pending.keys)} keys`}`}
          confirmColor="blue"
          onConfirm={() => update.mutateAsync(pending.change)}
        />
      ) : null}
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
        description="Rate limits and monthly quotas per API key (an account's keys share them), by plan. Keys pick up a change within 5 seconds."
      />
      <QueryState query={plans} errorTitle="Could not load the plans" skeletonRows={3}>
        {(data) => (
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              {data.filter(editable).map((p) => (
                <PlanCard key={`${p.name}-${p.perMinute}-${p.perDay}-${p.perMonth}`} plan={p} />
              ))}
            </SimpleGrid>
            <Alert color="blue" title="Enterprise">
              <Text size="sm">
                Enterprise keys have their own limits, set when the key is issued or on the key&apos;s page.
              </Text>
            </Alert>
            <Paper withBorder p="md" aria-labelledby="key-caps">
              <Stack gap="sm">
                <Title order={2} size="h4" id="key-caps">
                  Keys per consumer account
                </Title>
                <Hint>
                  How many live keys the members of one account may hold on each plan. Keys admins issue
                  outside accounts are not counted.
                </Hint>
                {data.map((p) => (
                  <KeyCapField key={`${p.name}-${p.maxKeys}`} plan={p} />
                ))}
              </Stack>
            </Paper>
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** A plan's cap on the live keys one account may hold; empty means no cap. Accounts over a lowered cap keep theirs. */
function KeyCapField({ plan }: { plan: Plan }) {
  const trpc = useTRPC();
  const [value, setValue] = useState<number | string>(plan.maxKeys ?? "");
  const maxKeys = value === "" ? null : Number(value);
  const save = useNotifiedMutation(trpc.plans.setKeyCap.mutationOptions(), {
    invalidate: [trpc.plans.pathKey(), trpc.accounts.pathKey()],
    success: (saved) =>
      `${planLabel(saved.name)}: ${saved.maxKeys === null ? "no cap on keys" : `${formatNumber(saved.maxKeys)} keys per account`}.`,
    failure: `Could not save the ${planLabel(plan.name)} plan's key cap`,
  });
  return (
    <Group
      component="form"
      align="flex-end"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate({ plan: plan.name, maxKeys });
      }}
    >
      <NumberInput
        label={`${planLabel(plan.name)}: keys per account`}
        description="Empty: no cap"
        min={1}
        max={10_000}
        allowDecimal={false}
        value={value}
        onChange={setValue}
        w={220}
      />
      <Button type="submit" variant="default" loading={save.isPending} disabled={maxKeys === plan.maxKeys}>
        Save
      </Button>
    </Group>
  );
}
