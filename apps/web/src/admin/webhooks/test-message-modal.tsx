"use client";
/**
 * Send a test message to one endpoint now: `webhook.test`, or an example of an event type (about animal or
 * category 0, which nothing has), so the receiver can try its handling of each type. The attempt is reported.
 */
import { Button, Group, Modal, Select, Stack, Text } from "@mantine/core";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE, type WebhookTestType } from "@petstore/contracts";
import { useState } from "react";
import { useNotifiedMutation } from "../use-notified-mutation";
import { attemptSummary } from "./webhook-meta";
import { useWebhookApi } from "./webhook-scope";

const TYPES = [
  { value: WEBHOOK_TEST_EVENT_TYPE, label: `A test message (${WEBHOOK_TEST_EVENT_TYPE})` },
  ...WEBHOOK_EVENT_TYPES.map((type) => ({ value: type, label: `An example ${type} event` })),
];

export function TestMessageModal({
  opened,
  onClose,
  endpoint,
}: {
  opened: boolean;
  onClose(): void;
  endpoint: { id: string; url: string };
}) {
  const api = useWebhookApi();
  const [type, setType] = useState<WebhookTestType>(WEBHOOK_TEST_EVENT_TYPE);
  const test = useNotifiedMutation(api.procedures.sendTest.mutationOptions(), {
    invalidate: api.invalidate,
    success: (r) =>
      r.outcome === "succeeded"
        ? `Test message delivered: ${attemptSummary(r)}.`
        : `Test message failed (${attemptSummary(r)})${r.outcome === "retrying" ? "; it will be retried" : ""}.`,
    failure: "Could not send a test message",
    onDone: onClose,
  });
  return (
    <Modal opened={opened} onClose={onClose} title={`Send a test message to ${endpoint.url}`} centered>
      <Stack>
        <Text size="sm">
          It is sent now, signed like every message, to this endpoint only. An example event has the type's
          real shape, about animal or category 0, which does not exist.
        </Text>
        <Select
          label="Message"
          data={TYPES}
          value={type}
          onChange={(v) => setType((v as WebhookTestType | null) ?? WEBHOOK_TEST_EVENT_TYPE)}
          allowDeselect={false}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={test.isPending} onClick={() => test.mutate({ id: endpoint.id, type })}>
            Send
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
