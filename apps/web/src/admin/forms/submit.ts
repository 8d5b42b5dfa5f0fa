"use client";
/**
 * The dashboard forms' submit step: the browser's own validation is off (`noValidate`), so the handler stops
 * the native submission, validates with the form's contract schema (errors then show on the fields) and sends
 * only a valid input.
 */
import type { FormEvent } from "react";

/** A `<form onSubmit>` handler that sends `form`'s parsed value to `send` when it is valid. */
export function onValidSubmit<Out>(form: { validate(): Out | undefined }, send: (input: Out) => void) {
  return (event: FormEvent) => {
    event.preventDefault();
    const input = form.validate();
    if (input) send(input);
  };
}
