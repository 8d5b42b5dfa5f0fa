"use client";
/**
 * Replay an endpoint's messages of a recent period (the last hour … 30 days), all of them or only those whose
 * delivery failed: after an outage, the receiver gets what it missed, each message with its own webhook-id
 * (receivers de-duplicate by it).
 */
import { Button, Checkbox, Group, Modal, Select, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { useNotifiedMutation } from "../use-notified-mutation";
import { useWebhookApi } from "./webhook-scope";

const PERIODS = [
  { value: "1", label: "The last hour" },
  { value: "24", label: "The last 24 hours" },
  { value: "168", label: "The last 7 days" },
  { value: "720", label: "The last 30 days (everything kept)" },
];

export function ReplayRangeModal({
  opened,
  onClose,
  endpoint,
}: {
  opened: boolean;
  onClose(): void;
  endpoint: { id: string; url: string };
}) {
  const api = useWebhookApi();
  const [hours, setHours] = useState("24");
  const [failedOnly, setFailedOnly] = useState(true);
  const replay = useNotifiedMutation(api.procedures.replayRange.mutationOptions(), {
    invalidate: api.invalidate,
    success: (r) =>
      r.queued === 0
        ? "There was nothing to replay in that period."
        : `${r.queued} message${r.queued === 1 ? "" : "s"} will be sent again to ${endpoint.url}.`,
    failure: "Could not replay the messages",
    onDone: onClose,
  });
  return (
    <Modal opened={opened} onClose={onClose} title={`Replay messages to ${endpoint.url}`} centered>
      <Stack>
        <Text size="sm">
          Messages are sent again with their original webhook-id, so a receiver that already handled one can
          recognise it.
        </Text>
        <Select
          label="Messages from"
          data={PERIODS}
          value={hours}
          onChange={(v) => setHours(v ?? "24")}
          allowDeselect={false}
        />
        <Checkbox
          label="Only messages whose delivery failed"
          description="Unticked: every message of the endpoint's events in the period, also those it received or missed while disabled."
          checked={failedOnly}
          onChange={(e) => setFailedOnly(e.currentTarget.checked)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            loading={replay.isPending}
            onClick={() =>
              replay.mutate({
                endpointId: endpoint.id,
                since: new Date(Date.now() - Number(hours) * 3_600_000).toISOString(),
                failedOnly,
              })
            }
          >
            Replay
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
