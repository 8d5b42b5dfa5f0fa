"use client";
/**
 * A small form-state hook validated by a zod schema from @petstore/contracts, so the form shows the very
 * messages the server (and the REST API) would. `submit` validates, then hands the parsed value to
 * `onValid`; server-side field errors can be shown with `setServerErrors`.
 */
import { useCallback, useState } from "react";
import type { z } from "zod";
import { fieldErrors } from "./feedback";

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
    const next: Record<string, string> = {};
    for (const issue of parsed.error.issues) {
      const path = issue.path.map(String).join(".") || "form";
      next[path] ??= issue.message;
    }
    setErrors(next);
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
