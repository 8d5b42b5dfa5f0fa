"use client";
/**
 * Keys per consumer account (admins; docs/contract.md section 7): each plan's cap on the live keys one account
 * may hold, edited per plan; an empty field means no cap. Accounts over a lowered cap keep their keys.
 */
import { Button, Group, NumberInput, Paper, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { formatNumber, planLabel } from "../format";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";

type Plan = RouterOutputs["plans"]["list"][number];

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

/** The key caps of every plan. */
export function KeyCaps({ plans }: { plans: Plan[] }) {
  return (
    <Paper withBorder p="md" aria-labelledby="key-caps">
      <Stack gap="sm">
        <Title order={2} size="h4" id="key-caps">
          Keys per consumer account
        </Title>
        <Text size="sm" c="dimmed">
          How many live keys the members of one account may hold on each plan. Keys admins issue outside
          accounts are not counted.
        </Text>
        {plans.map((p) => (
          <KeyCapField key={`${p.name}-${p.maxKeys}`} plan={p} />
        ))}
      </Stack>
    </Paper>
  );
}
