"use client";
/**
 * The dashboard's one mutate -> invalidate -> notify step: wraps a tRPC mutation so that on success the
 * given queries are invalidated (awaited, so lists are fresh when the toast shows) and a success toast
 * names what happened; on failure the form shows per-field errors when there are any, otherwise a red
 * toast says what failed and why. `mutateAsync` still rejects, so confirmation dialogs stay open.
 */
import { type QueryKey, type UseMutationOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { notifyError, notifySuccess } from "./feedback";

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

/** `useMutation(trpc.x.y.mutationOptions())` with the shared feedback. */
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
