"use client";
/**
 * Changes a key's IP allowlist (docs/contract.md section 2, "IP allowlists"), an admin's or a portal member's:
 * addresses and CIDR ranges, one a line (commas and blanks separate too); empty lifts the limit.
 */
import { Textarea } from "@mantine/core";
import { ApiKeyAllowlistChange, allowlistEntries } from "@petstore/contracts";
import { Hint } from "../components/page";
import { FormModal } from "../dialogs";
import { useNotifiedMutation } from "../feedback";
import { useZodForm } from "../forms/use-zod-form";
import { useTRPC } from "../trpc";
import type { ApiKey } from "./key-meta";

export function AllowlistDialog({
  scope,
  keyInfo,
  onClose,
}: {
  scope: "admin" | "portal";
  keyInfo: Pick<ApiKey, "id" | "name" | "prefix" | "allowedIps">;
  onClose(): void;
}) {
  const trpc = useTRPC();
  const form = useZodForm(ApiKeyAllowlistChange, { allowedIps: keyInfo.allowedIps.join("\n") }, (v) => ({
    id: keyInfo.id,
    allowedIps: allowlistEntries(v.allowedIps),
  }));
  const options = {
    success: (key: { allowedIps: string[] }) =>
      key.allowedIps.length
        ? `${keyInfo.prefix}… may now be used from ${key.allowedIps.join(", ")} only.`
        : `${keyInfo.prefix}… may now be used from any address.`,
    failure: "Could not change the IP allowlist",
    form,
    onDone: onClose,
  };
  const admin = useNotifiedMutation(trpc.apiKeys.changeAllowlist.mutationOptions(), {
    invalidate: [trpc.apiKeys.pathKey()],
    ...options,
  });
  const portal = useNotifiedMutation(trpc.portal.keys.changeAllowlist.mutationOptions(), {
    invalidate: [trpc.portal.pathKey()],
    ...options,
  });
  return (
    <FormModal
      title={`IP allowlist of "${keyInfo.name}"`}
      onClose={onClose}
      form={form}
      mutation={scope === "admin" ? admin : portal}
      submitLabel="Save allowlist"
    >
      <Textarea
        label="Addresses and CIDR ranges"
        description="One a line, IPv4 or IPv6: 192.0.2.10, 192.0.2.0/24, 2001:db8::/32. Empty: any address."
        autosize
        minRows={3}
        maxRows={10}
        {...form.field("allowedIps")}
        data-autofocus
      />
      <Hint>
        Every server applies the change within 5 seconds. Calls of {keyInfo.prefix}… from other addresses are
        then refused (403 ip_not_allowed).
      </Hint>
    </FormModal>
  );
}
