"use client";
/**
 * An account's own limits (per minute and per UTC day), which its keys share instead of its plan's: both empty
 * means the plan's. Validated with the contract the server applies (both needed on Enterprise, the minute's no
 * more than the day's); saved with `accounts.setLimits`.
 */
import { Button, Group, Stack, Text, Title } from "@mantine/core";
import { AccountLimitsChange } from "@petstore/contracts";
import { formatNumber } from "../format";
import { onValidSubmit } from "../forms/submit";
import { LimitsFields } from "../keys/limits-fields";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { numberValue, useZodForm } from "../use-zod-form";
import type { AccountDetail } from "./account-meta";

const asLimit = (v: number | string) => numberValue(v) ?? null;

export function AccountLimitsEditor({
  account,
}: {
  account: Pick<AccountDetail, "id" | "name" | "perMinute" | "perDay" | "limits">;
}) {
  const trpc = useTRPC();
  const own = account.perMinute !== null || account.perDay !== null;
  const form = useZodForm(
    AccountLimitsChange,
    { perMinute: account.perMinute ?? "", perDay: account.perDay ?? "" } as {
      perMinute: number | string;
      perDay: number | string;
    },
    (v) => ({ id: account.id, perMinute: asLimit(v.perMinute), perDay: asLimit(v.perDay) }),
  );
  const save = useNotifiedMutation(trpc.accounts.setLimits.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey(), trpc.apiKeys.pathKey()],
    success: (_a, v) =>
      v.perMinute === null && v.perDay === null
        ? `"${account.name}" uses its plan's limits again.`
        : `"${account.name}" has its own limits: ${formatNumber(v.perMinute)}/min, ${formatNumber(v.perDay)}/day.`,
    failure: "Could not save the limits",
    form,
  });
  const submit = onValidSubmit(form, (input) => save.mutate(input));
  return (
    <form onSubmit={submit} noValidate aria-labelledby="own-limits">
      <Stack gap="xs">
        <Title order={2} size="h4" id="own-limits">
          Own limits
        </Title>
        <Text size="sm" c="dimmed">
          Shared by every key of the account instead of the plan's; leave both empty for the plan's.
          Enterprise has no plan-wide limits, so an Enterprise account needs its own. In force now:{" "}
          {account.limits.perMinute === null ? "none" : `${formatNumber(account.limits.perMinute)}/min`},{" "}
          {account.limits.perDay === null ? "none" : `${formatNumber(account.limits.perDay)}/day`}
          {own ? " (its own)" : " (the plan's)"}.
        </Text>
        <LimitsFields
          values={form.values}
          errors={form.errors}
          onChange={(k, v) => form.setValue(k, v)}
          required={false}
        />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save limits
          </Button>
          {own ? (
            <Button
              variant="default"
              onClick={() => {
                form.reset({ perMinute: "", perDay: "" });
                save.mutate({ id: account.id, perMinute: null, perDay: null });
              }}
              loading={save.isPending}
            >
              Use the plan's limits
            </Button>
          ) : null}
        </Group>
      </Stack>
    </form>
  );
}
