"use client";
/** Appears when animals are selected: set (or clear) the status of all of them at once. */
import { Button, Group, Paper, Select, Text } from "@mantine/core";
import { useState } from "react";
import { STATUS_LABELS } from "../format";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";

const OPTIONS = (["available", "pending", "sold", "none"] as const).map((value) => ({
  value,
  label: STATUS_LABELS[value],
}));

export function BulkStatusBar({ ids, onDone }: { ids: number[]; onDone(): void }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<string | null>(null);
  const mutation = useNotifiedMutation(trpc.pets.setStatus.mutationOptions(), {
    invalidate: [trpc.pets.pathKey(), trpc.overview.pathKey()],
    success: ({ updated }, input) =>
      `Status of ${updated} animal${updated === 1 ? "" : "s"} set to ${STATUS_LABELS[input.status ?? "none"]}.`,
    failure: "Could not change the status",
    onDone: () => {
      setStatus(null);
      onDone();
    },
  });
  if (ids.length === 0) return null;
  return (
    <Paper
      withBorder
      p="sm"
      mb="sm"
      bg="var(--mantine-color-teal-light)"
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
        <Button
          size="xs"
          disabled={!status}
          loading={mutation.isPending}
          onClick={() =>
            status &&
            mutation.mutate({
              ids,
              status: status === "none" ? null : (status as "available" | "pending" | "sold"),
            })
          }
        >
          Apply to {ids.length}
        </Button>
        <Button size="xs" variant="default" onClick={onDone}>
          Clear selection
        </Button>
      </Group>
    </Paper>
  );
}
