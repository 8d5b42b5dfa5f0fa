"use client";
/**
 * Roll (rotate) a key: choose how long the old key keeps working, then show the new secret once. By the admin's
 * `apiKeys.roll` unless `via` names another procedure (the developer portal's) and the queries it refreshes.
 */
import { Button, Group, Modal, Select, Stack, Text } from "@mantine/core";
import { DEFAULT_ROLL_GRACE_SECONDS } from "@petstore/contracts";
import type { QueryKey } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { type ApiKey, GRACE_OPTIONS } from "./key-meta";
import { SecretOnce } from "./secret-once";

/** A roll procedure's mutation options (one taking and answering what `apiKeys.roll` does) and the queries to refresh. */
export interface RollVia {
  options: ReturnType<ReturnType<typeof useTRPC>["apiKeys"]["roll"]["mutationOptions"]>;
  invalidate: QueryKey[];
}

export function RollKeyModal({
  keyInfo,
  opened,
  onClose,
  via,
}: {
  keyInfo: Pick<ApiKey, "id" | "name" | "prefix">;
  opened: boolean;
  onClose(): void;
  via?: RollVia;
}) {
  const trpc = useTRPC();
  const [grace, setGrace] = useState(GRACE_OPTIONS[0]?.value ?? String(DEFAULT_ROLL_GRACE_SECONDS));
  const options: RollVia["options"] = via?.options ?? trpc.apiKeys.roll.mutationOptions();
  const roll = useNotifiedMutation(options, {
    invalidate: via?.invalidate ?? [trpc.apiKeys.pathKey()],
    success: (key) => `${keyInfo.prefix}… was rolled to ${key.prefix}….`,
    failure: "Could not roll the key",
  });
  const close = () => {
    roll.reset();
    onClose();
  };
  const issued = roll.data;
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={issued ? "Your new API key" : `Roll "${keyInfo.name}"`}
      centered
      size="lg"
      closeOnClickOutside={!issued}
      closeOnEscape={!issued}
    >
      {issued ? (
        <SecretOnce secret={issued.key} prefix={issued.prefix} onDone={close} />
      ) : (
        <Stack>
          <Text size="sm">
            A new key with the same name, plan, limits, scopes and expiry replaces{" "}
            <strong>{keyInfo.prefix}…</strong>. Give its users time to switch.
          </Text>
          <Select
            label="The old key keeps working for"
            data={GRACE_OPTIONS}
            value={grace}
            onChange={(v) => setGrace(v ?? String(DEFAULT_ROLL_GRACE_SECONDS))}
            allowDeselect={false}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              onClick={() => roll.mutate({ id: keyInfo.id, graceSeconds: Number(grace) })}
              loading={roll.isPending}
            >
              Roll key
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
