"use client";
/**
 * Shown while animals are selected: gives them all one status after a confirmation, and the notice that follows
 * offers to undo it (each animal gets its status back unless it was changed since). When a whole page is selected
 * and more animals match, it offers every matching animal (at most MAX_BULK_STATUS), changed by the filters on the
 * server rather than by ids.
 */
import { Button, Group, Paper, Select, Text } from "@mantine/core";
import { MAX_BULK_STATUS, type PetFilter, type PetStatus } from "@petstore/contracts";
import { useState } from "react";
import { Hint } from "@/ui/components/page";
import { ConfirmDialog } from "@/ui/dialogs";
import { notifySuccessWithUndo, useNotifiedMutation } from "@/ui/feedback";
import { formatNumber, STATUS_LABELS } from "@/ui/format";
import { useTRPC } from "@/ui/trpc";

const OPTIONS = (["available", "pending", "sold", "none"] as const).map((value) => ({
  value,
  label: STATUS_LABELS[value],
}));

const animals = (n: number) => `${formatNumber(n)} animal${n === 1 ? "" : "s"}`;

/** What the table's filters match: the filter, how many (exact when `exact`), and whether a page shows them all. */
export interface Matching {
  filter: PetFilter;
  total: number;
  exact: boolean;
  /** The selection is the whole page, and the page is not every match. */
  offer: boolean;
}

export function BulkStatusBar({
  ids,
  matching,
  allMatching,
  onSelectAllMatching,
  onDone,
}: {
  ids: number[];
  matching: Matching;
  /** Every animal `matching.filter` matches is selected, not `ids`. */
  allMatching: boolean;
  onSelectAllMatching(): void;
  onDone(): void;
}) {
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
  const feedback = {
    invalidate,
    failure: "Could not change the status",
    onDone: (
      { updated, previous }: { updated: number; previous: { id: number; status: PetStatus | null }[] },
      input: { status: PetStatus | null },
    ) => {
      notifySuccessWithUndo(
        `Status of ${animals(updated)} set to ${STATUS_LABELS[input.status ?? "none"]}.`,
        () => {
          if (previous.length > 0) restore.mutate({ previous, from: input.status });
        },
      );
      setStatus(null);
      onDone();
    },
  };
  const change = useNotifiedMutation(trpc.pets.setStatus.mutationOptions(), feedback);
  const changeMatching = useNotifiedMutation(trpc.pets.setStatusMatching.mutationOptions(), feedback);
  if (ids.length === 0 && !allMatching) return null;
  const target: PetStatus | null = status === "none" ? null : (status as PetStatus);
  const label = STATUS_LABELS[target ?? "none"];
  const count = allMatching ? matching.total : ids.length;
  const tooMany = !matching.exact || matching.total > MAX_BULK_STATUS;
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
          {allMatching ? `All ${formatNumber(count)} matching selected` : `${formatNumber(count)} selected`}
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
          Apply to {formatNumber(count)}
        </Button>
        <Button size="xs" variant="default" onClick={onDone}>
          Clear selection
        </Button>
      </Group>
      {matching.offer && !allMatching ? (
        tooMany ? (
          <Hint mt="xs">
            {matching.exact ? formatNumber(matching.total) : `More than ${formatNumber(matching.total)}`}{" "}
            animals match; at most {formatNumber(MAX_BULK_STATUS)} change at once. Narrow the filters to
            change them all.
          </Hint>
        ) : (
          <Button size="compact-sm" variant="subtle" mt="xs" onClick={onSelectAllMatching}>
            Select all {formatNumber(matching.total)} matching
          </Button>
        )
      ) : null}
      {confirming ? (
        <ConfirmDialog
          onClose={() => setConfirming(false)}
          title={`Change the status of ${animals(count)}?`}
          message={`${allMatching ? `Every animal the filters match (${animals(count)})` : animals(count)} get${count === 1 && !allMatching ? "s" : ""} the status ${label}, replacing the status each has now. The notice that follows can undo it.`}
          confirmLabel={`Set ${animals(count)} to ${label}`}
          confirmColor="blue"
          onConfirm={() =>
            allMatching
              ? changeMatching.mutateAsync({ filter: matching.filter, status: target })
              : change.mutateAsync({ ids, status: target })
          }
        />
      ) : null}
    </Paper>
  );
}
