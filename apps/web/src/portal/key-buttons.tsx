"use client";
/**
 * A key's actions in the portal: roll (a key that works and was not rolled yet, while the account is not suspended;
 * the new secret is shown once) and revoke (after a confirmation). Each dialog exists only while open.
 */
import { Button } from "@mantine/core";
import { useState } from "react";
import { ConfirmDialog } from "@/admin/components/confirm-action";
import { RollKeyModal } from "@/admin/keys/roll-key-modal";
import { useTRPC } from "@/admin/trpc";
import { useNotifiedMutation } from "@/admin/use-notified-mutation";
import { isUsable, type PortalKey } from "./portal-meta";

type Target = Pick<PortalKey, "id" | "name" | "prefix" | "state" | "rolledToId">;

export function KeyButtons({
  apiKey,
  suspended,
  size = "xs",
}: {
  apiKey: Target;
  suspended: boolean;
  size?: "xs" | "sm";
}) {
  const [dialog, setDialog] = useState<"roll" | "revoke" | null>(null);
  const close = () => setDialog(null);
  const label = `${apiKey.name} (${apiKey.prefix}…)`;
  return (
    <>
      {isUsable(apiKey) && !apiKey.rolledToId && !suspended ? (
        <Button size={size} variant="default" aria-label={`Roll ${label}`} onClick={() => setDialog("roll")}>
          Roll
        </Button>
      ) : null}
      {apiKey.state !== "revoked" ? (
        <Button
          size={size}
          variant="light"
          color="red"
          aria-label={`Revoke ${label}`}
          onClick={() => setDialog("revoke")}
        >
          Revoke
        </Button>
      ) : null}
      {dialog === "roll" ? <PortalRoll apiKey={apiKey} onClose={close} /> : null}
      {dialog === "revoke" ? <RevokeDialog apiKey={apiKey} onClose={close} /> : null}
    </>
  );
}

function PortalRoll({ apiKey, onClose }: { apiKey: Target; onClose(): void }) {
  const trpc = useTRPC();
  return (
    <RollKeyModal
      keyInfo={apiKey}
      opened
      onClose={onClose}
      via={{ options: trpc.portal.keys.roll.mutationOptions(), invalidate: [trpc.portal.pathKey()] }}
    />
  );
}

function RevokeDialog({ apiKey, onClose }: { apiKey: Target; onClose(): void }) {
  const trpc = useTRPC();
  const label = `${apiKey.prefix}…`;
  const revoke = useNotifiedMutation(trpc.portal.keys.revoke.mutationOptions(), {
    invalidate: [trpc.portal.pathKey()],
    success: () => `${label} was revoked.`,
    failure: "Could not revoke the key",
  });
  return (
    <ConfirmDialog
      opened
      onClose={onClose}
      title={`Revoke "${apiKey.name}"?`}
      message={`Requests with ${label} will be refused within 5 seconds. This cannot be undone.`}
      confirmLabel="Revoke key"
      onConfirm={() => revoke.mutateAsync({ id: apiKey.id })}
    />
  );
}
