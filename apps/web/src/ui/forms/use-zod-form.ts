"use client";
/**
 * Form state validated by a contract schema of @petstore/contracts, the rules the server applies, worded by
 * forms/messages.ts. Values stay exactly as typed; the browser's own validation is off (`noValidate`).
 */
import { type FormEvent, useCallback, useState } from "react";
import type { z } from "zod";
import { fieldErrors } from "../feedback";
import { fieldMessages } from "./messages";

export interface ZodForm<V extends Record<string, unknown>, Out> {
  values: V;
  errors: Record<string, string>;
  setValue<K extends keyof V>(key: K, value: V[K]): void;
  /** A Mantine input's `value`, `onChange` (a value or an input's event), `error` and the schema's `maxLength`. */
  field<K extends keyof V & string>(key: K): FieldProps<V[K]>;
  /** Validates; returns the parsed output, or undefined (errors then shown). */
  validate(): Out | undefined;
  /** A `<form onSubmit>` handler that hands a valid input to `send`. */
  onSubmit(send: (input: Out) => void): (event: FormEvent) => void;
  /** Shows the field errors of a failed server call; returns true when there were any. */
  setServerErrors(error: unknown): boolean;
  reset(values?: V): void;
}

export interface FieldProps<T> {
  value: T;
  /** Takes the value, or an input's change event. */
  onChange(value: unknown): void;
  error: string | undefined;
  maxLength?: number;
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
    setErrors(parsed.success ? {} : fieldMessages(parsed.error));
    return parsed.success ? parsed.data : undefined;
  };

  const shape = (schema as { shape?: Record<string, z.ZodType> }).shape;
  const field = <K extends keyof V & string>(key: K): FieldProps<V[K]> => {
    const maxLength = shape?.[key] ? maxLengthOf(shape[key]) : undefined;
    return {
      value: values[key],
      onChange: (v) => {
        const event = v && typeof v === "object" && "currentTarget" in v;
        setValue(key, (event ? (v.currentTarget as HTMLInputElement).value : v) as V[K]);
      },
      error: errors[key],
      ...(maxLength === undefined ? {} : { maxLength }),
    };
  };

  return {
    values,
    errors,
    setValue,
    field,
    validate,
    onSubmit: (send) => (event) => {
      event.preventDefault();
      const input = validate();
      if (input !== undefined) send(input);
    },
    setServerErrors: (error) => {
      const found = fieldErrors(error);
      setErrors(found);
      return Object.keys(found).length > 0;
    },
    reset: (next) => {
      setValues(next ?? initial);
      setErrors({});
    },
  };
}

/** The schema's maximum length, for an input's `maxLength`, through optional, default and pipe wrappers. */
export function maxLengthOf(schema: z.ZodType): number | undefined {
  let current: unknown = schema;
  for (let depth = 0; depth < 6 && current; depth++) {
    const node = current as { maxLength?: number | null; def?: { in?: unknown; innerType?: unknown } };
    if (typeof node.maxLength === "number") return node.maxLength;
    current = node.def?.in ?? node.def?.innerType;
  }
  return undefined;
}

/** A number field's value for the schema: `""` is nothing entered; anything else is converted as typed. */
export const numberValue = (v: number | string): number | undefined =>
  v === "" || v === "-" ? undefined : Number(String(v).replaceAll(",", ""));
