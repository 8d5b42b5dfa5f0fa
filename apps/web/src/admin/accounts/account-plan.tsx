"use client";
/**
 * An account's plan as a select: choosing another plan asks for confirmation (every key of the account moves to
 * it, with its limits and key cap, within 5 s) before it is saved; cancelling keeps the current plan. A refusal
 * (Enterprise without the account's own limits) is the server's message, with the hint to set them first.
 */
import { Select } from "@mantine/core";
import { useState } from "react";
import { ConfirmDialog } from "../components/confirm-action";
import { planLabel } from "../format";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { ACCOUNT_PLAN_OPTIONS, type AccountDetail } from "./account-meta";

type Plan = AccountDetail["plan"];

export function AccountPlanSelect({ account }: { account: Pick<AccountDetail, "id" | "name" | "plan"> }) {
  const trpc = useTRPC();
  const [next, setNext] = useState<Plan | null>(null);
  const change = useNotifiedMutation(trpc.accounts.setPlan.mutationOptions(), {
    invalidate: [trpc.accounts.pathKey(), trpc.apiKeys.pathKey()],
    success: (a) => `"${a.name}" is now on the ${planLabel(a.plan)} plan.`,
    failure: (v) =>
      v.plan === "enterprise"
        ? "Could not change the plan: set the account's own limits first"
        : "Could not change the plan",
  });
  return (
    <>
      <Select
        label="Change plan"
        data={ACCOUNT_PLAN_OPTIONS}
        value={account.plan}
        onChange={(v) => {
          if (v && v !== account.plan) setNext(v as Plan);
        }}
        allowDeselect={false}
        w={200}
      />
      {next ? (
        <ConfirmDialog
          opened
          onClose={() => setNext(null)}
          title={`Move "${account.name}" to the ${planLabel(next)} plan?`}
          message={
            next === "enterprise"
              ? "Every key of the account moves to the Enterprise plan within 5 seconds and shares the account's own limits."
              : `Every key of the account moves to the ${planLabel(next)} plan: its rate limits and key cap apply within 5 seconds.`
          }
          confirmLabel={`Change to ${planLabel(next)}`}
          confirmColor="blue"
          onConfirm={() => change.mutateAsync({ id: account.id, plan: next })}
        />
      ) : null}
    </>
  );
}
