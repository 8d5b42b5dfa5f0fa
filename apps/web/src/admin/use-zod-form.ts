"use client";
/**
 * A small form-state hook validated by a zod schema from @petstore/contracts: the same rules the server
 * applies, worded by the dashboard's message catalogue. Values are kept exactly as typed (strings from
 * inputs); `submit` validates, then hands the parsed value to `onValid`; server-side field errors show
 * with `setServerErrors`.
 */
import { useCallback, useState } from "react";
import type { z } from "zod";
import { fieldErrors } from "./feedback";
import { fieldMessages } from "./forms/messages";

export interface ZodForm<V extends Record<string, unknown>, Out> {
  values: V;
  errors: Record<string, string>;
  setValue<K extends keyof V>(key: K, value: V[K]): void;
  /** Validates; returns the parsed output, or undefined (errors then shown). */
  validate(): Out | undefined;
  /** Shows the field errors of a failed server call; returns true when there were any. */
  setServerErrors(error: unknown): boolean;
  reset(values?: V): void;
}

/**
 * @param schema the contract schema (its output is what the procedure takes)
 * @param initial the initial field values
 * @param toInput maps field values (strings from inputs) to the schema's input shape
 */
export function useZodForm<S extends z.ZodType, V extends Record<string, unknown>>(
  schema: S,
  initial: V,
  toInput: (values: V) => unknown,
): ZodForm<V, z.output<S>> {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});

  const setValue = useCallback(<K extends keyof V>(key: K, value: V[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => {
      if (!(key in e)) return e;
      const { [key as string]: _removed, ...rest } = e;
      return rest;
    });
  }, []);

  const validate = () => {
    const parsed = schema.safeParse(toInput(values));
    if (parsed.success) {
      setErrors({});
      return parsed.data;
    }
    setErrors(fieldMessages(parsed.error));
    return undefined;
  };

  const setServerErrors = (error: unknown) => {
    const found = fieldErrors(error);
    setErrors(found);
    return Object.keys(found).length > 0;
  };

  const reset = (next?: V) => {
    setValues(next ?? initial);
    setErrors({});
  };

  return { values, errors, setValue, validate, setServerErrors, reset };
}

/**
 * The schema's maximum length, for an input's `maxLength` (so the two never disagree). Looks through
 * optional/default wrappers and pipes (a transform after the length check) to the string schema.
 */
export function maxLengthOf(schema: z.ZodType): number | undefined {
  let current: unknown = schema;
  for (let depth = 0; depth < 6 && current; depth++) {
    const node = current as { maxLength?: number | null; def?: { in?: unknown; innerType?: unknown } };
    if (typeof node.maxLength === "number") return node.maxLength;
    current = node.def?.in ?? node.def?.innerType;
  }
  return undefined;
}

/**
 * A number field's value as the schema should see it: `""` is "nothing entered" (undefined), anything else
 * is converted without rounding or clamping, so the schema can say what is wrong with it.
 */
export const numberValue = (v: number | string): number | undefined =>
  v === "" || v === "-" ? undefined : Number(String(v).replaceAll(",", ""));
