"use client";
/** Custom per-minute / per-day limit inputs (required for Enterprise keys). */
import { Group, NumberInput } from "@mantine/core";

export interface LimitsValues {
  perMinute: number | string;
  perDay: number | string;
}

export function LimitsFields({
  values,
  errors,
  onChange,
}: {
  values: LimitsValues;
  errors: Record<string, string>;
  onChange(key: keyof LimitsValues, value: number | string): void;
}) {
  return (
    <Group grow align="flex-start">
      <NumberInput
        label="Requests per minute"
        required
        min={1}
        allowDecimal={false}
        allowNegative={false}
        thousandSeparator=","
        value={values.perMinute}
        onChange={(v) => onChange("perMinute", v)}
        error={errors.perMinute}
      />
      <NumberInput
        label="Requests per day"
        required
        min={1}
        allowDecimal={false}
        allowNegative={false}
        thousandSeparator=","
        value={values.perDay}
        onChange={(v) => onChange("perDay", v)}
        error={errors.perDay}
      />
    </Group>
  );
}

/** `""` → undefined, anything else → a number (validation then says what is wrong). */
export const limitValue = (v: number | string) => (v === "" ? undefined : Number(v));
