"use client";
/**
 * A key's actions in the portal: roll (a key that works and was not rolled, while the account is not suspended)
 * its IP allowlist (a key that works), and revoke (after confirming); each dialog exists only while open.
 */
import { Button } from "@mantine/core";
import { useState } from "react";
import { ConfirmMutation } from "@/ui/dialogs";
import { AllowlistDialog } from "@/ui/keys/allowlist-dialog";
import { RollKeyDialog } from "@/ui/keys/roll-key-dialog";
import { useTRPC } from "@/ui/trpc";
import type { PortalKey } from "./portal-meta";

type Target = Pick<PortalKey, "id" | "name" | "prefix" | "state" | "rolledToId" | "allowedIps">;

export function KeyButtons({
  apiKey,
  suspended,
  size = "xs",
}: {
  apiKey: Target;
  suspended: boolean;
  size?: "xs" | "sm";
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState<"roll" | "allowlist" | "revoke" | null>(null);
  const close = () => setOpen(null);
  const label = `${apiKey.name} (${apiKey.prefix}…)`;
  const usable = apiKey.state !== "revoked" && apiKey.state !== "expired";
  return (
    <>
      {usable && !apiKey.rolledToId && !suspended ? (
        <Button size={size} variant="default" aria-label={`Roll ${label}`} onClick={() => setOpen("roll")}>
          Roll
        </Button>
      ) : null}
      {usable ? (
        <Button
          size={size}
          variant="default"
          aria-label={`IP allowlist of ${label}`}
          onClick={() => setOpen("allowlist")}
        >
          IP allowlist
        </Button>
      ) : null}
      {apiKey.state !== "revoked" ? (
        <Button
          size={size}
          variant="light"
          color="red"
          aria-label={`Revoke ${label}`}
          onClick={() => setOpen("revoke")}
        >
          Revoke
        </Button>
      ) : null}
      {open === "roll" ? <RollKeyDialog scope="portal" keyInfo={apiKey} onClose={close} /> : null}
      {open === "allowlist" ? <AllowlistDialog scope="portal" keyInfo={apiKey} onClose={close} /> : null}
      {open === "revoke" ? (
        <ConfirmMutation
          options={trpc.portal.keys.revoke.mutationOptions()}
          input={{ id: apiKey.id }}
          feedback={{
            invalidate: [trpc.portal.pathKey()],
            success: () => `${apiKey.prefix}… was revoked.`,
            failure: "Could not revoke the key",
          }}
          onClose={close}
          title={`Revoke "${apiKey.name}"?`}
          message={`Requests with ${apiKey.prefix}… will be refused within 5 seconds. This cannot be undone.`}
          confirmLabel="Revoke key"
        />
      ) : null}
    </>
  );
}
