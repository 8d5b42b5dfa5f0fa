"use client";
/**
 * A webhook endpoint's actions, in a menu, and their dialogs: add or edit, send a test message (or an example
 * event), rotate the secret, replay a period, enable or disable, delete; disabling, rotating and deleting ask first.
 */
import { Button, Checkbox, Group, Select, Stack, Text, TextInput } from "@mantine/core";
import {
  MAX_WEBHOOK_URL_LENGTH,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT_TYPE,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookReplayRange,
  WebhookTestMessage,
} from "@petstore/contracts";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ActionMenu, ConfirmMutation, Dialog, FormModal } from "../dialogs";
import { useNotifiedMutation } from "../feedback";
import { useZodForm } from "../forms/use-zod-form";
import { attemptSummary, EVENT_TYPE_LABELS, useWebhookApi, WebhookSecretOnce } from "./scope";

export interface EditedEndpoint {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
}

/**
 * Registers an endpoint (its secret then shown once) or edits `endpoint`; whether the URL may be called (https, a
 * public address) is the server's answer, beside the field. A new endpoint starts with no event ticked: the
 * sender chooses what its receiver handles ("Every event" ticks them all).
 */
export function EndpointDialog({ endpoint, onClose }: { endpoint?: EditedEndpoint; onClose(): void }) {
  const api = useWebhookApi();
  const form = useZodForm(
    endpoint ? WebhookEndpointUpdate : WebhookEndpointCreate,
    {
      url: endpoint?.url ?? "",
      description: endpoint?.description ?? "",
      eventTypes: endpoint?.eventTypes ?? [],
    },
    (v) => (endpoint ? { id: endpoint.id, ...v } : v),
  );
  const create = useNotifiedMutation(api.procedures.create.mutationOptions(), {
    invalidate: api.invalidate,
    success: (e) => `${e.url} will receive ${e.eventTypes.join(", ")}.`,
    failure: "Could not register the endpoint",
    form,
  });
  const update = useNotifiedMutation(api.procedures.update.mutationOptions(), {
    invalidate: api.invalidate,
    success: (e) => `${e.url} was saved.`,
    failure: "Could not save the endpoint",
    form,
    onDone: onClose,
  });
  const events = form.values.eventTypes;
  return (
    <FormModal
      title={
        create.data ? "Endpoint registered" : endpoint ? "Edit webhook endpoint" : "Add a webhook endpoint"
      }
      size="lg"
      onClose={onClose}
      form={form}
      mutation={{
        mutate: (input) =>
          endpoint
            ? update.mutate(input as WebhookEndpointUpdate)
            : create.mutate(input as WebhookEndpointCreate),
        isPending: create.isPending || update.isPending,
      }}
      submitLabel={endpoint ? "Save" : "Add endpoint"}
      done={create.data ? <WebhookSecretOnce secret={create.data.secret} onDone={onClose} /> : undefined}
    >
      <TextInput
        label="URL"
        description="Where the events are sent (POST). It must use https and a public address."
        placeholder="https://example.com/webhooks/petstore"
        type="url"
        required
        {...form.field("url")}
        maxLength={MAX_WEBHOOK_URL_LENGTH}
        data-autofocus
      />
      <TextInput
        label="Description"
        description="Optional: who runs the receiver, what it is for."
        {...form.field("description")}
      />
      <Checkbox.Group
        label="Events"
        description="The endpoint receives only the events chosen here."
        required
        {...form.field("eventTypes")}
      >
        <Group gap="xs" mt={6}>
          <Button
            size="compact-xs"
            variant="default"
            onClick={() => form.setValue("eventTypes", [...WEBHOOK_EVENT_TYPES])}
            disabled={events.length === WEBHOOK_EVENT_TYPES.length}
          >
            Every event
          </Button>
          <Button
            size="compact-xs"
            variant="default"
            onClick={() => form.setValue("eventTypes", [])}
            disabled={events.length === 0}
          >
            None
          </Button>
        </Group>
        <Stack gap={6} mt={6}>
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <Checkbox
              key={type}
              value={type}
              label={
                <>
                  <code>{type}</code>: {EVENT_TYPE_LABELS[type]}
                </>
              }
            />
          ))}
        </Stack>
      </Checkbox.Group>
    </FormModal>
  );
}

const TEST_TYPES = [
  { value: WEBHOOK_TEST_EVENT_TYPE, label: `A test message (${WEBHOOK_TEST_EVENT_TYPE})` },
  ...WEBHOOK_EVENT_TYPES.map((type) => ({ value: type, label: `An example ${type} event` })),
];

/** Sends `webhook.test`, or an example of an event type (about animal or category 0), now; reports the attempt. */
function TestMessageDialog({ endpoint, onClose }: { endpoint: EditedEndpoint; onClose(): void }) {
  const api = useWebhookApi();
  const form = useZodForm(WebhookTestMessage, { type: WEBHOOK_TEST_EVENT_TYPE as string }, (v) => ({
    id: endpoint.id,
    type: v.type,
  }));
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
    <FormModal
      title={`Send a test message to ${endpoint.url}`}
      onClose={onClose}
      form={form}
      mutation={test}
      submitLabel="Send"
    >
      <Text size="sm">
        It is sent now, signed like every message, to this endpoint only. An example event has the type&apos;s
        real shape, about animal or category 0, which does not exist.
      </Text>
      <Select label="Message" data={TEST_TYPES} allowDeselect={false} {...form.field("type")} />
    </FormModal>
  );
}

const PERIODS = [
  { value: "1", label: "The last hour" },
  { value: "24", label: "The last 24 hours" },
  { value: "168", label: "The last 7 days" },
  { value: "720", label: "The last 30 days (everything kept)" },
];

/**
 * Replays the endpoint's messages of a recent period, all or only the failed ones, each with its own webhook-id
 * (receivers de-duplicate by it).
 */
function ReplayDialog({ endpoint, onClose }: { endpoint: EditedEndpoint; onClose(): void }) {
  const api = useWebhookApi();
  const form = useZodForm(WebhookReplayRange, { hours: "24", failedOnly: true }, (v) => ({
    endpointId: endpoint.id,
    since: new Date(Date.now() - Number(v.hours) * 3_600_000).toISOString(),
    failedOnly: v.failedOnly,
  }));
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
    <FormModal
      title={`Replay messages to ${endpoint.url}`}
      onClose={onClose}
      form={form}
      mutation={replay}
      submitLabel="Replay"
    >
      <Text size="sm">
        Messages are sent again with their original webhook-id, so a receiver that already handled one can
        recognise it.
      </Text>
      <Select label="Messages from" data={PERIODS} allowDeselect={false} {...form.field("hours")} />
      <Checkbox
        label="Only messages whose delivery failed"
        description="Unticked: every message of the endpoint's events in the period, also those it received or missed while disabled."
        checked={form.values.failedOnly}
        onChange={(e) => form.setValue("failedOnly", e.currentTarget.checked)}
      />
    </FormModal>
  );
}

export function EndpointActions({
  endpoint,
  size = "xs",
  afterDelete,
}: {
  endpoint: EditedEndpoint & { enabled: boolean };
  size?: "xs" | "sm";
  /** Where to go once the endpoint is deleted (its own page would be gone). */
  afterDelete?: string;
}) {
  const api = useWebhookApi();
  const router = useRouter();
  const [secret, setSecret] = useState<string | null>(null);
  const { url, id } = endpoint;
  const feedback = (success: string, failure: string) => ({
    invalidate: api.invalidate,
    success: () => success,
    failure,
  });
  const enable = useNotifiedMutation(
    api.procedures.enable.mutationOptions(),
    feedback(`${url} is enabled again.`, "Could not enable the endpoint"),
  );
  return (
    <>
      <ActionMenu
        name={`Actions for ${url}`}
        size={size}
        actions={[
          { label: "Edit…", dialog: (close) => <EndpointDialog endpoint={endpoint} onClose={close} /> },
          {
            label: "Send test message…",
            dialog: (close) => <TestMessageDialog endpoint={endpoint} onClose={close} />,
          },
          {
            label: "Rotate secret…",
            dialog: (close) => (
              <ConfirmMutation
                options={api.procedures.rotate.mutationOptions()}
                input={{ id }}
                feedback={{
                  ...feedback(`${url} has a new signing secret.`, "Could not rotate the secret"),
                  onDone: (r) => setSecret(r.secret),
                }}
                onClose={close}
                title={`Rotate the secret of ${url}?`}
                message="A new signing secret is made and shown once. For 24 hours every delivery is signed with both the old and the new secret, so the receiver can switch without missing a message."
                confirmLabel="Rotate secret"
                confirmColor="blue"
              />
            ),
          },
          {
            label: "Replay messages…",
            hidden: !endpoint.enabled,
            dialog: (close) => <ReplayDialog endpoint={endpoint} onClose={close} />,
          },
          {
            label: "Disable…",
            hidden: !endpoint.enabled,
            dialog: (close) => (
              <ConfirmMutation
                options={api.procedures.disable.mutationOptions()}
                input={{ id }}
                feedback={feedback(`${url} is disabled.`, "Could not disable the endpoint")}
                onClose={close}
                title={`Disable ${url}?`}
                message="Nothing more is sent to it, and the deliveries still waiting fail. After enabling it again, replay what it missed."
                confirmLabel="Disable endpoint"
              />
            ),
          },
          { label: "Enable", hidden: endpoint.enabled, run: () => enable.mutate({ id }) },
          {
            label: "Delete…",
            danger: true,
            dialog: (close) => (
              <ConfirmMutation
                options={api.procedures.remove.mutationOptions()}
                input={{ id }}
                feedback={{
                  ...feedback(`${url} was deleted.`, "Could not delete the endpoint"),
                  onDone: () => (afterDelete ? router.push(afterDelete) : undefined),
                }}
                onClose={close}
                title={`Delete ${url}?`}
                message="The endpoint and its delivery log are deleted. This cannot be undone."
                confirmLabel="Delete endpoint"
              />
            ),
          },
        ]}
      />
      {secret ? (
        <Dialog
          title="New signing secret"
          size="lg"
          onClose={() => setSecret(null)}
          closeOnClickOutside={false}
          closeOnEscape={false}
        >
          <WebhookSecretOnce secret={secret} rotated onDone={() => setSecret(null)} />
        </Dialog>
      ) : null}
    </>
  );
}
