"use client";
/**
 * Shown while animals are selected: gives them all one status after a confirmation, and the notice that follows
 * offers to undo it (each animal gets its status back unless it was changed since).
 */
import { Button, Group, Paper, Select, Text } from "@mantine/core";
import type { PetStatus } from "@petstore/contracts";
import { useState } from "react";
import { ConfirmDialog } from "@/ui/dialogs";
import { notifySuccessWithUndo, useNotifiedMutation } from "@/ui/feedback";
import { STATUS_LABELS } from "@/ui/format";
import { useTRPC } from "@/ui/trpc";

const OPTIONS = (["available", "pending", "sold", "none"] as const).map((value) => ({
  value,
  label: STATUS_LABELS[value],
}));

const animals = (n: number) => `${n} animal${n === 1 ? "" : "s"}`;

export function BulkStatusBar({ ids, onDone }: { ids: number[]; onDone(): void }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const invalidate = [trpc.pets.pathKey(), trpc.overview.pathKey()];
  const restore = useNotifiedMutation(trpc.pets.restoreStatus.mutationOptions(), {
    invalidate,
    success: ({ restored, skipped }) =>
      `Status of ${animals(restored)} put back.` +
      (skipped > 0
        ? ` ${animals(skipped)} changed or deleted since ${skipped === 1 ? "was" : "were"} left as is.`
        : ""),
    failure: "Could not undo the status change",
  });
  const change = useNotifiedMutation(trpc.pets.setStatus.mutationOptions(), {
    invalidate,
    failure: "Could not change the status",
    onDone: ({ updated, previous }, input) => {
      notifySuccessWithUndo(
        `Status of ${animals(updated)} set to ${STATUS_LABELS[input.status ?? "none"]}.`,
        () => restore.mutate({ previous, from: input.status }),
      );
      setStatus(null);
      onDone();
    },
  });
  if (ids.length === 0) return null;
  const target: PetStatus | null = status === "none" ? null : (status as PetStatus);
  const label = STATUS_LABELS[target ?? "none"];
  return (
    // Sticky under the header: on a long list (a phone's cards above all) the bar stays on screen while scrolling.
    <Paper
      withBorder
      p="sm"
      mb="sm"
      bg="var(--mantine-color-body)"
      pos="sticky"
      top="calc(var(--app-shell-header-offset, 0rem) + var(--mantine-spacing-xs))"
      style={{ zIndex: 2, boxShadow: "var(--mantine-shadow-sm)" }}
      role="region"
      aria-label="Bulk actions"
    >
      <Group gap="sm" align="flex-end">
        <Text size="sm" fw={600} mr="auto" style={{ alignSelf: "center" }}>
          {ids.length} selected
        </Text>
        <Select
          label="Set status to"
          placeholder="Choose a status"
          data={OPTIONS}
          value={status}
          onChange={setStatus}
          w={180}
          size="xs"
        />
        <Button size="xs" disabled={!status} onClick={() => setConfirming(true)}>
          Apply to {ids.length}
        </Button>
        <Button size="xs" variant="default" onClick={onDone}>
          Clear selection
        </Button>
      </Group>
      {confirming ? (
        <ConfirmDialog
          onClose={() => setConfirming(false)}
          title={`Change the status of ${animals(ids.length)}?`}
          message={`${animals(ids.length)} get the status ${label}, replacing the status each has now. The notice that follows can undo it.`}
          confirmLabel={`Set ${animals(ids.length)} to ${label}`}
          confirmColor="blue"
          onConfirm={() => change.mutateAsync({ ids, status: target })}
        />
      ) : null}
    </Paper>
  );
}
