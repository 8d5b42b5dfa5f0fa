"use client";
/** A list's filter bar: a search field, and choices whose first option (value "") is no filter (null in the view). */
import {
  Group,
  type GroupProps,
  Select,
  type SelectProps,
  TextInput,
  type TextInputProps,
} from "@mantine/core";
import { PlanName } from "@petstore/contracts";
import type { z } from "zod";
import { planLabel } from "@/ui/format";
import { maxLengthOf } from "@/ui/forms/use-zod-form";

export const PLAN_FILTER = [
  { value: "", label: "Any plan" },
  ...PlanName.options.map((p) => ({ value: p, label: planLabel(p) })),
];

export const FilterBar = (props: GroupProps) => (
  <Group gap="sm" mb="md" align="flex-end" wrap="wrap" {...props} />
);

/** A search field that takes no more than the contract's `schema` does. */
export function SearchFilter({
  schema,
  onChange,
  ...props
}: Omit<TextInputProps, "onChange"> & { schema: z.ZodType; onChange(value: string): void }) {
  return (
    <TextInput
      type="search"
      maxLength={maxLengthOf(schema)}
      onChange={(e) => onChange(e.currentTarget.value)}
      w={{ base: "100%", xs: 260 }}
      {...props}
    />
  );
}

export function FilterSelect<V extends string>({
  value,
  onChange,
  ...props
}: Omit<SelectProps, "value" | "onChange"> & { value: V | null; onChange(value: V | null): void }) {
  return (
    <Select
      value={value ?? ""}
      onChange={(v) => onChange((v || null) as V | null)}
      allowDeselect={false}
      {...props}
    />
  );
}
