"use client";
/**
 * User feedback helpers: success/failure toasts, and turning a tRPC error into words and per-field
 * messages. Field messages go through the dashboard's message catalogue (forms/messages.ts).
 */
import { Button, Group, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { TRPCClientError } from "@trpc/client";
import { detailMessage } from "./forms/messages";
import type { ClientError } from "./trpc";

/** The error's `data` (appCode, details, ...), typed from the server's errorFormatter through AppRouter. */
function dataOf(error: unknown): ClientError["data"] | undefined {
  return error instanceof TRPCClientError ? ((error as ClientError).data ?? undefined) : undefined;
}

/** A sentence for the user; network failures get a hint instead of a stack. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const data = dataOf(error);
    if (!data) return "The server could not be reached. Check your connection and try again.";
    const first = data.details?.[0];
    if (data.appCode === "validation_failed" && first)
      return `Please check ${first.path}: ${detailMessage(first.message)}`;
    return error.message;
  }
  return "Something went wrong. Please try again.";
}

/** Seconds until a throttled call may be retried (the server's Retry-After), else undefined. */
export function retryAfterSeconds(error: unknown): number | undefined {
  return dataOf(error)?.retryAfterSeconds ?? undefined;
}

/** Per-field messages from a validation error, keyed by the field path (e.g. `name`, `categoryId`). */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of dataOf(error)?.details ?? []) out[d.path] ??= detailMessage(d.message);
  return out;
}

/** Green toast. */
export function notifySuccess(message: string) {
  notifications.show({ color: "teal", title: "Done", message, autoClose: 4000 });
}

/**
 * Green toast with an Undo button, open long enough to reach it (12 s, or until closed); the button runs `undo` once
 * and closes the toast.
 */
export function notifySuccessWithUndo(message: string, undo: () => void) {
  const id = notifications.show({
    color: "teal",
    title: "Done",
    autoClose: 12_000,
    message: (
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <Text size="sm">{message}</Text>
        <Button
          size="compact-sm"
          variant="default"
          onClick={() => {
            notifications.hide(id);
            undo();
          }}
        >
          Undo
        </Button>
      </Group>
    ),
  });
}

/** Red toast naming what failed and why. */
export function notifyError(title: string, error: unknown) {
  notifications.show({ color: "red", title, message: errorMessage(error), autoClose: 8000 });
}
