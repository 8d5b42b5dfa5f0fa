"use client";
/**
 * Register a webhook endpoint (then show its secret once), or edit one: URL, description and the events it
 * receives, validated with the same contract the server applies; whether the URL may be called (https, a
 * public address) is the server's answer, shown beside the field. A new endpoint starts with every event ticked,
 * as a receiver usually wants them all; "Every event" and "None" tick or clear the list at once.
 */
import { Button, Checkbox, Group, Modal, Stack, TextInput } from "@mantine/core";
import {
  MAX_WEBHOOK_URL_LENGTH,
  WEBHOOK_EVENT_TYPES,
  WebhookDescription,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
} from "@petstore/contracts";
import { useState } from "react";
import { onValidSubmit } from "../forms/submit";
import { useNotifiedMutation } from "../use-notified-mutation";
import { maxLengthOf, useZodForm } from "../use-zod-form";
import { EVENT_TYPE_OPTIONS } from "./webhook-meta";
import { useWebhookApi } from "./webhook-scope";
import { WebhookSecretOnce } from "./webhook-secret-once";

export interface EditedEndpoint {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
}

type Values = { url: string; description: string; eventTypes: string[] };

/** `endpoint` given: edit it; otherwise register a new one. */
export function EndpointFormModal({
  opened,
  onClose,
  endpoint,
}: {
  opened: boolean;
  onClose(): void;
  endpoint?: EditedEndpoint;
}) {
  const [secret, setSecret] = useState<string | null>(null);
  const close = () => {
    setSecret(null);
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={secret ? "Endpoint registered" : endpoint ? "Edit webhook endpoint" : "Add a webhook endpoint"}
      centered
      size="lg"
      closeOnClickOutside={!secret}
      closeOnEscape={!secret}
    >
      {secret ? (
        <WebhookSecretOnce secret={secret} onDone={close} />
      ) : opened ? (
        <EndpointForm endpoint={endpoint} onCreated={setSecret} onDone={close} />
      ) : null}
    </Modal>
  );
}

function EndpointForm({
  endpoint,
  onCreated,
  onDone,
}: {
  endpoint?: EditedEndpoint;
  onCreated(secret: string): void;
  onDone(): void;
}) {
  const api = useWebhookApi();
  const initial: Values = {
    url: endpoint?.url ?? "",
    description: endpoint?.description ?? "",
    eventTypes: endpoint?.eventTypes ?? [...WEBHOOK_EVENT_TYPES],
  };
  const createForm = useZodForm(WebhookEndpointCreate, initial, (v) => v);
  const editForm = useZodForm(WebhookEndpointUpdate, initial, (v) => ({ id: endpoint?.id, ...v }));
  const form = endpoint ? editForm : createForm;
  const invalidate = api.invalidate;
  const create = useNotifiedMutation(api.procedures.create.mutationOptions(), {
    invalidate,
    success: (e) => `${e.url} will receive ${e.eventTypes.join(", ")}.`,
    failure: "Could not register the endpoint",
    form: createForm,
    onDone: (e) => onCreated(e.secret),
  });
  const update = useNotifiedMutation(api.procedures.update.mutationOptions(), {
    invalidate,
    success: (e) => `${e.url} was saved.`,
    failure: "Could not save the endpoint",
    form: editForm,
    onDone,
  });
  const submit = endpoint
    ? onValidSubmit(editForm, (input) => update.mutate(input))
    : onValidSubmit(createForm, (input) => create.mutate(input));
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="URL"
          description="Where the events are sent (POST). It must use https and a public address."
          placeholder="https://example.com/webhooks/petstore"
          type="url"
          required
          value={form.values.url}
          onChange={(e) => form.setValue("url", e.currentTarget.value)}
          error={form.errors.url}
          maxLength={MAX_WEBHOOK_URL_LENGTH}
          data-autofocus
        />
        <TextInput
          label="Description"
          description="Optional: who runs the receiver, what it is for."
          value={form.values.description}
          onChange={(e) => form.setValue("description", e.currentTarget.value)}
          error={form.errors.description}
          maxLength={maxLengthOf(WebhookDescription)}
        />
        <Checkbox.Group
          label="Events"
          description="The endpoint receives only the events chosen here."
          required
          value={form.values.eventTypes}
          onChange={(v) => form.setValue("eventTypes", v)}
          error={form.errors.eventTypes}
        >
          <Group gap="xs" mt={6}>
            <Button
              size="compact-xs"
              variant="default"
              onClick={() => form.setValue("eventTypes", [...WEBHOOK_EVENT_TYPES])}
              disabled={form.values.eventTypes.length === WEBHOOK_EVENT_TYPES.length}
            >
              Every event
            </Button>
            <Button
              size="compact-xs"
              variant="default"
              onClick={() => form.setValue("eventTypes", [])}
              disabled={form.values.eventTypes.length === 0}
            >
              None
            </Button>
          </Group>
          <Stack gap={6} mt={6}>
            {EVENT_TYPE_OPTIONS.map((o) => (
              <Checkbox
                key={o.value}
                value={o.value}
                label={
                  <>
                    <code>{o.value}</code>: {o.label}
                  </>
                }
              />
            ))}
          </Stack>
        </Checkbox.Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending || update.isPending}>
            {endpoint ? "Save" : "Add endpoint"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
