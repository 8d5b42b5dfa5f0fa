"use client";
/**
 * The actions on one API key, in a menu: roll, change plan, change scopes, lift a ban, reset today's usage,
 * revoke.
 * Only actions that make sense for the key's state are offered (no second roll of a key already rolled);
 * destructive ones ask first. A dialog and its mutation exist only while it is open: a page of 100 keys holds 100
 * menus, not 700 closed dialogs and 300 mutations to render at every change of the page.
 */
import { Button, Menu } from "@mantine/core";
import type { UseMutationOptions } from "@tanstack/react-query";
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
  const [dialog, setDialog] = useState<Dialog>(null);
  const usable = apiKey.state !== "revoked" && apiKey.state !== "expired";
  const label = `${apiKey.prefix}…`;
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
      {dialog ? <KeyDialog dialog={dialog} apiKey={apiKey} onClose={() => setDialog(null)} /> : null}
    </>
  );
}

/** The open dialog `dialog` of `apiKey`'s actions. */
function KeyDialog({
  dialog,
  apiKey,
  onClose,
}: {
  dialog: NonNullable<Dialog>;
  apiKey: KeyActionTarget;
  onClose(): void;
}) {
  const trpc = useTRPC();
  const label = `${apiKey.prefix}…`;
  switch (dialog) {
    case "roll":
      return <RollKeyModal keyInfo={apiKey} opened onClose={onClose} />;
    case "plan":
      return <ChangePlanModal keyInfo={apiKey} opened onClose={onClose} />;
    case "scopes":
      return <ChangeScopesModal keyInfo={apiKey} opened onClose={onClose} />;
    case "revoke":
      return (
        <ConfirmMutation
          id={apiKey.id}
          options={trpc.apiKeys.revoke.mutationOptions()}
          success={`${label} was revoked.`}
          failure="Could not revoke the key"
          onClose={onClose}
          title={`Revoke "${apiKey.name}"?`}
          message={`Requests with ${label} will be refused within 5 seconds, on every server. This cannot be undone.`}
          confirmLabel="Revoke key"
        />
      );
    case "unban":
      return (
        <ConfirmMutation
          id={apiKey.id}
          options={trpc.apiKeys.liftBan.mutationOptions()}
          success={`The ban on ${label} was lifted.`}
          failure="Could not lift the ban"
          onClose={onClose}
          title={`Lift the ban on "${apiKey.name}"?`}
          message="The key can call the API again at once, within its normal limits."
          confirmLabel="Lift ban"
          confirmColor="blue"
        />
      );
    case "reset":
      return (
        <ConfirmMutation
          id={apiKey.id}
          options={trpc.apiKeys.resetUsage.mutationOptions()}
          success={`Today's usage of ${label} was reset.`}
          failure="Could not reset the usage"
          onClose={onClose}
          title={`Reset today's usage of "${apiKey.name}"?`}
          message="Today's request and 429 counts go back to zero, and so does the key's current daily quota."
          confirmLabel="Reset usage"
        />
      );
  }
}

/** A confirmation that runs one mutation on key `id`, then refreshes the keys and the overview. */
function ConfirmMutation<TData, TError>({
  id,
  options,
  success,
  failure,
  onClose,
  title,
  message,
  confirmLabel,
  confirmColor,
}: {
  id: string;
  options: UseMutationOptions<TData, TError, { id: string }, unknown>;
  success: string;
  failure: string;
  onClose(): void;
  title: string;
  message: string;
  confirmLabel: string;
  confirmColor?: string;
}) {
  const trpc = useTRPC();
  const mutation = useNotifiedMutation(options, {
    invalidate: [trpc.apiKeys.pathKey(), trpc.overview.pathKey()],
    success: () => success,
    failure,
  });
  return (
    <ConfirmDialog
      opened
      onClose={onClose}
      title={title}
      message={message}
      confirmLabel={confirmLabel}
      confirmColor={confirmColor}
      onConfirm={() => mutation.mutateAsync({ id })}
    />
  );
}
