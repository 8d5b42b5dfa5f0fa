"use client";
/** Feedback: a tRPC error in words and per field (forms/messages.ts), toasts, and the mutations that give both. */
import { Button, Group, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { type QueryKey, type UseMutationOptions, useMutation, useQueryClient } from "@tanstack/react-query";
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

export function notifySuccess(message: string) {
  notifications.show({ color: "teal", title: "Done", message, autoClose: 4000 });
}

/** A success toast with an Undo button, open 12 s so it can be reached; the button runs `undo` once. */
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

export function notifyError(title: string, error: unknown) {
  notifications.show({ color: "red", title, message: errorMessage(error), autoClose: 8000 });
}

export interface MutationFeedback<TData, TVariables> {
  /** Query keys to refresh, e.g. `trpc.apiKeys.pathKey()`. */
  invalidate: QueryKey[];
  /** Success toast text; no toast when omitted. */
  success?: (data: TData, variables: TVariables) => string;
  /** Failure toast title, e.g. "Could not revoke the key". */
  failure: string | ((variables: TVariables) => string);
  /** A form whose fields show server validation errors instead of a toast. */
  form?: { setServerErrors(error: unknown): boolean };
  /** Runs after the invalidation and the toast. */
  onDone?: (data: TData, variables: TVariables) => void;
}

/**
 * `useMutation(trpc.x.y.mutationOptions())` that, on success, refreshes `invalidate` (awaited, so lists are fresh
 * when the toast shows) and says what happened; on failure shows the form's field errors or a red toast.
 * `mutateAsync` still rejects, so a confirmation stays open.
 */
export function useNotifiedMutation<TData, TError, TVariables, TContext>(
  options: UseMutationOptions<TData, TError, TVariables, TContext>,
  feedback: MutationFeedback<TData, TVariables>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    onSuccess: async (data, variables) => {
      await Promise.all(feedback.invalidate.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      if (feedback.success) notifySuccess(feedback.success(data, variables));
      feedback.onDone?.(data, variables);
    },
    onError: (error, variables) => {
      if (feedback.form?.setServerErrors(error)) return;
      notifyError(
        typeof feedback.failure === "string" ? feedback.failure : feedback.failure(variables),
        error,
      );
    },
  });
}
