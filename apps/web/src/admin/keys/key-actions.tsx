"use client";
/**
 * The actions on one API key, in a menu: roll, change plan, change scopes, lift a ban, reset today's usage,
 * revoke.
 * Only actions that make sense for the key's state are offered (no second roll of a key already rolled);
 * destructive ones ask first.
 */
import { Button, Menu } from "@mantine/core";
import { useState } from "react";
import { ConfirmDialog } from "../components/confirm-action";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { ChangePlanModal, type PlanChangeTarget } from "./change-plan-modal";
import { ChangeScopesModal } from "./change-scopes-modal";
import type { ApiKey } from "./key-meta";
import { RollKeyModal } from "./roll-key-modal";

export type KeyActionTarget = PlanChangeTarget & Pick<ApiKey, "prefix" | "state" | "rolledToId" | "scopes">;

type Dialog = "roll" | "plan" | "scopes" | "unban" | "reset" | "revoke" | null;

export function KeyActions({ apiKey, size = "xs" }: { apiKey: KeyActionTarget; size?: "xs" | "sm" }) {
  const trpc = useTRPC();
  const [dialog, setDialog] = useState<Dialog>(null);
  const close = () => setDialog(null);
  const usable = apiKey.state !== "revoked" && apiKey.state !== "expired";
  const label = `${apiKey.prefix}…`;
  const invalidate = [trpc.apiKeys.pathKey(), trpc.overview.pathKey()];
  const revoke = useNotifiedMutation(trpc.apiKeys.revoke.mutationOptions(), {
    invalidate,
    success: () => `${label} was revoked.`,
    failure: "Could not revoke the key",
  });
  const liftBan = useNotifiedMutation(trpc.apiKeys.liftBan.mutationOptions(), {
    invalidate,
    success: () => `The ban on ${label} was lifted.`,
    failure: "Could not lift the ban",
  });
  const resetUsage = useNotifiedMutation(trpc.apiKeys.resetUsage.mutationOptions(), {
    invalidate,
    success: () => `Today's usage of ${label} was reset.`,
    failure: "Could not reset the usage",
  });

  return (
    <>
      <Menu position="bottom-end" withinPortal shadow="md">
        <Menu.Target>
          <Button size={size} variant="default" aria-label={`Actions for ${apiKey.name} (${label})`}>
            Actions
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {/* A key is rolled once (docs/contract.md section 2): one in its grace period offers no second roll. */}
          {usable && !apiKey.rolledToId ? (
            <Menu.Item onClick={() => setDialog("roll")}>Roll key…</Menu.Item>
          ) : null}
          {usable ? <Menu.Item onClick={() => setDialog("plan")}>Change plan…</Menu.Item> : null}
          {usable ? <Menu.Item onClick={() => setDialog("scopes")}>Change scopes…</Menu.Item> : null}
          {apiKey.state === "banned" ? (
            <Menu.Item onClick={() => setDialog("unban")}>Lift ban…</Menu.Item>
          ) : null}
          <Menu.Item onClick={() => setDialog("reset")}>Reset today&apos;s usage…</Menu.Item>
          {apiKey.state !== "revoked" ? (
            <>
              <Menu.Divider />
              <Menu.Item color="red.9" onClick={() => setDialog("revoke")}>
                Revoke…
              </Menu.Item>
            </>
          ) : null}
        </Menu.Dropdown>
      </Menu>
      <RollKeyModal keyInfo={apiKey} opened={dialog === "roll"} onClose={close} />
      <ChangePlanModal keyInfo={apiKey} opened={dialog === "plan"} onClose={close} />
      <ChangeScopesModal keyInfo={apiKey} opened={dialog === "scopes"} onClose={close} />
      <ConfirmDialog
        opened={dialog === "revoke"}
        onClose={close}
        title={`Revoke "${apiKey.name}"?`}
        message={`Requests with ${label} will be refused within 5 seconds, on every server. This cannot be undone.`}
        confirmLabel="Revoke key"
        onConfirm={() => revoke.mutateAsync({ id: apiKey.id })}
      />
      <ConfirmDialog
        opened={dialog === "unban"}
        onClose={close}
        title={`Lift the ban on "${apiKey.name}"?`}
        message="The key can call the API again at once, within its normal limits."
        confirmLabel="Lift ban"
        confirmColor="blue"
        onConfirm={() => liftBan.mutateAsync({ id: apiKey.id })}
      />
      <ConfirmDialog
        opened={dialog === "reset"}
        onClose={close}
        title={`Reset today's usage of "${apiKey.name}"?`}
        message="Today's request and 429 counts go back to zero, and so does the key's current daily quota."
        confirmLabel="Reset usage"
        onConfirm={() => resetUsage.mutateAsync({ id: apiKey.id })}
      />
    </>
  );
}
