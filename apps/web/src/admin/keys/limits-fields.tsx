"use client";
/**
 * Per-minute / per-day limit inputs (custom Enterprise limits, plan limits). They keep exactly what was
 * typed: no clamping, rounding or sign stripping (`clampBehavior="none"`, negatives and decimals allowed
 * in the field), so a wrong value stays visible with the catalogue's explanation beside it.
 */
import { Group, NumberInput, type NumberInputProps, Stack } from "@mantine/core";

export interface LimitsValues {
  perMinute: number | string;
  perDay: number | string;
}

/** A whole-number field that never changes what was typed. */
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

export function LimitsFields({
  values,
  errors,
  onChange,
  dayLabel = "Requests per day",
  required = true,
  stacked = false,
}: {
  values: LimitsValues;
  errors: Record<string, string>;
  onChange(key: keyof LimitsValues, value: number | string): void;
  dayLabel?: string;
  required?: boolean;
  /** One under the other (narrow cards) instead of side by side. */
  stacked?: boolean;
}) {
  const Layout = stacked ? Stack : Group;
  return (
    <Layout grow={stacked ? undefined : true} align={stacked ? "stretch" : "flex-start"} gap="sm">
      <LimitInput
        label="Requests per minute"
        required={required}
        value={values.perMinute}
        onChange={(v) => onChange("perMinute", v)}
        error={errors.perMinute}
      />
      <LimitInput
        label={dayLabel}
        required={required}
        value={values.perDay}
        onChange={(v) => onChange("perDay", v)}
        error={errors.perDay}
      />
    </Layout>
  );
}
