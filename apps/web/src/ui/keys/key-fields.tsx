"use client";
/** A key's scopes (docs/contract.md section 2, "Scopes") and rate limits, as form fields and as they are shown. */
import { Badge, Checkbox, Group, NumberInput, type NumberInputProps, Stack } from "@mantine/core";
import { API_KEY_SCOPES, type ApiKeyScope, SCOPE_DESCRIPTIONS } from "@petstore/contracts";
import { Hint } from "../components/page";
import type { FieldProps } from "../forms/use-zod-form";

/** One checkbox per scope, saying what it allows; the contract wants at least one. */
export function ScopesField(props: FieldProps<string[]>) {
  return (
    <Checkbox.Group
      label="Scopes"
      description="What the key may do. Give a client only what it needs."
      withAsterisk
      {...props}
    >
      <Stack gap="xs" mt="xs">
        {API_KEY_SCOPES.map((scope) => (
          <Checkbox
            key={scope}
            value={scope}
            label={scope}
            description={`May ${SCOPE_DESCRIPTIONS[scope]}.`}
          />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}

/** A key's scopes as badges, in the contract's order. */
export function ScopeBadges({ scopes }: { scopes: readonly ApiKeyScope[] }) {
  return (
    <Group gap={4} component="span">
      {scopes.map((scope) => (
        <Badge key={scope} variant="outline" size="sm" tt="none">
          {scope}
        </Badge>
      ))}
    </Group>
  );
}

/** For a key without every scope, a line saying which it has ("only pets:read"); nothing for the usual key. */
export function RestrictedScopes({ scopes }: { scopes: readonly ApiKeyScope[] }) {
  if (scopes.length >= API_KEY_SCOPES.length) return null;
  return <Hint size="xs">only {scopes.join(", ")}</Hint>;
}

type LimitField = FieldProps<number | string>;

/**
 * A whole-number field that never changes what was typed (no clamping, rounding or sign stripping), so a wrong
 * value stays visible beside the catalogue's explanation.
 */
export function LimitInput(props: Omit<NumberInputProps, "min" | "max" | "clampBehavior">) {
  return (
    <NumberInput
      clampBehavior="none"
      allowNegative
      allowDecimal
      thousandSeparator=","
      inputMode="numeric"
      {...props}
    />
  );
}

/** The monthly quota of a plan or an account (requests per UTC calendar month); `empty` says what leaving it empty means. */
export function MonthlyQuotaInput({ empty, ...field }: LimitField & { empty: string }) {
  return <LimitInput label="Requests per month (UTC)" description={`Empty: ${empty}`} {...field} />;
}

/** A value of a monthly quota field: null when empty (none, or the plan's), else the number typed. */
export const quotaValue = (v: number | string): number | null | undefined =>
  v === "" ? null : typeof v === "number" ? v : Number.isFinite(Number(v)) ? Number(v) : undefined;

/** Requests per minute and per day, side by side or (`stacked`, narrow cards) one under the other. */
export function LimitsFields({
  perMinute,
  perDay,
  dayLabel = "Requests per day",
  required = true,
  stacked = false,
}: {
  perMinute: LimitField;
  perDay: LimitField;
  dayLabel?: string;
  required?: boolean;
  stacked?: boolean;
}) {
  const Layout = stacked ? Stack : Group;
  return (
    <Layout grow={stacked ? undefined : true} align={stacked ? "stretch" : "flex-start"} gap="sm">
      <LimitInput label="Requests per minute" required={required} {...perMinute} />
      <LimitInput label={dayLabel} required={required} {...perDay} />
    </Layout>
  );
}
