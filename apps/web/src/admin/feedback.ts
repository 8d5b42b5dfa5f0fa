"use client";
/**
 * User feedback helpers: success/failure toasts, and turning a tRPC error into words and per-field
 * messages (the server words validation failures exactly like the REST API).
 */
import { notifications } from "@mantine/notifications";
import { TRPCClientError } from "@trpc/client";

interface ErrorData {
  code?: string;
  appCode?: string | null;
  details?: { path: string; message: string }[] | null;
}

function dataOf(error: unknown): ErrorData | undefined {
  return error instanceof TRPCClientError ? (error.data as ErrorData | undefined) : undefined;
}

/** A sentence for the user; network failures get a hint instead of a stack. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    if (!error.data) return "The server could not be reached. Check your connection and try again.";
    return error.message;
  }
  return "Something went wrong. Please try again.";
}

/** Per-field messages from a validation error, keyed by the field path (e.g. `name`, `categoryId`). */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of dataOf(error)?.details ?? []) out[d.path] ??= d.message;
  return out;
}

/** Green toast. */
export function notifySuccess(message: string) {
  notifications.show({ color: "teal", title: "Done", message, autoClose: 4000 });
}

/** Red toast naming what failed and why. */
export function notifyError(title: string, error: unknown) {
  notifications.show({ color: "red", title, message: errorMessage(error), autoClose: 8000 });
}
