"use client";
/**
 * Suspend or resume an account after confirming: suspended, every key of the account answers 401 within
 * 5 seconds on every instance; resumed, they work again within the same time.
 */
import { ConfirmAction } from "../components/confirm-action";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import type { AccountDetail } from "./account-meta";

export function SuspendButton({ account }: { account: Pick<AccountDetail, "id" | "name" | "state"> }) {
  const trpc = useTRPC();
  const suspended = account.state === "suspended";
  const change = useNotifiedMutation(trpc.accounts.setSuspended.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey(), trpc.apiKeys.pathKey()],
    success: (a) => (a.state === "suspended" ? `"${a.name}" was suspended.` : `"${a.name}" was resumed.`),
    failure: suspended ? "Could not resume the account" : "Could not suspend the account",
  });
  return suspended ? (
    <ConfirmAction
      label="Resume"
      size="sm"
      title={`Resume "${account.name}"?`}
      message="The account's keys that are neither revoked nor expired work again within 5 seconds, and its members can create keys again."
      confirmLabel="Resume account"
      confirmColor="teal"
      onConfirm={() => change.mutateAsync({ id: account.id, suspended: false })}
    />
  ) : (
    <ConfirmAction
      label="Suspend"
      size="sm"
      title={`Suspend "${account.name}"?`}
      message="Every key of the account answers 401 within 5 seconds, on every instance, until the account is resumed. Its members cannot create keys meanwhile."
      confirmLabel="Suspend account"
      onConfirm={() => change.mutateAsync({ id: account.id, suspended: true })}
    />
  );
}
