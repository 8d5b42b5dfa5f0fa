"use client";
/**
 * The actions on one webhook endpoint, in a menu: edit, send a test message (or an example event), rotate the
 * secret, replay, enable or disable, delete. Disabling, rotating and deleting ask first; the test reports its
 * attempt.
 */
import { Button, Menu, Modal } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "../components/confirm-action";
import { useNotifiedMutation } from "../use-notified-mutation";
import { type EditedEndpoint, EndpointFormModal } from "./endpoint-form-modal";
import { ReplayRangeModal } from "./replay-range-modal";
import { TestMessageModal } from "./test-message-modal";
import { useWebhookApi } from "./webhook-scope";
import { WebhookSecretOnce } from "./webhook-secret-once";

export type EndpointActionTarget = EditedEndpoint & { enabled: boolean };

type Dialog = "edit" | "test" | "rotate" | "disable" | "delete" | "replay" | null;

export function EndpointActions({
  endpoint,
  size = "xs",
  afterDelete,
}: {
  endpoint: EndpointActionTarget;
  size?: "xs" | "sm";
  /** Where to go once the endpoint is deleted (its own page would be gone). */
  afterDelete?: string;
}) {
  const api = useWebhookApi();
  const router = useRouter();
  const [dialog, setDialog] = useState<Dialog>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const close = () => setDialog(null);
  const invalidate = api.invalidate;
  const label = endpoint.url;
  const enable = useNotifiedMutation(api.procedures.enable.mutationOptions(), {
    invalidate,
    success: () => `${label} is enabled again.`,
    failure: "Could not enable the endpoint",
  });
  const disable = useNotifiedMutation(api.procedures.disable.mutationOptions(), {
    invalidate,
    success: () => `${label} is disabled.`,
    failure: "Could not disable the endpoint",
  });
  const rotate = useNotifiedMutation(api.procedures.rotate.mutationOptions(), {
    invalidate,
    success: () => `${label} has a new signing secret.`,
    failure: "Could not rotate the secret",
    onDone: (r) => setSecret(r.secret),
  });
  const remove = useNotifiedMutation(api.procedures.remove.mutationOptions(), {
    invalidate,
    success: () => `${label} was deleted.`,
    failure: "Could not delete the endpoint",
    onDone: () => {
      if (afterDelete) router.push(afterDelete);
    },
  });

  return (
    <>
      <Menu position="bottom-end" withinPortal shadow="md">
        <Menu.Target>
          <Button size={size} variant="default" aria-label={`Actions for ${label}`}>
            Actions
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => setDialog("edit")}>Edit…</Menu.Item>
          <Menu.Item onClick={() => setDialog("test")}>Send test message…</Menu.Item>
          <Menu.Item onClick={() => setDialog("rotate")}>Rotate secret…</Menu.Item>
          {endpoint.enabled ? (
            <Menu.Item onClick={() => setDialog("replay")}>Replay messages…</Menu.Item>
          ) : null}
          {endpoint.enabled ? (
            <Menu.Item onClick={() => setDialog("disable")}>Disable…</Menu.Item>
          ) : (
            <Menu.Item onClick={() => enable.mutate({ id: endpoint.id })}>Enable</Menu.Item>
          )}
          <Menu.Divider />
          <Menu.Item color="red.9" onClick={() => setDialog("delete")}>
            Delete…
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <EndpointFormModal opened={dialog === "edit"} onClose={close} endpoint={endpoint} />
      <ReplayRangeModal opened={dialog === "replay"} onClose={close} endpoint={endpoint} />
      <TestMessageModal opened={dialog === "test"} onClose={close} endpoint={endpoint} />
      <ConfirmDialog
        opened={dialog === "rotate"}
        onClose={close}
        title={`Rotate the secret of ${label}?`}
        message="A new signing secret is made and shown once. For 24 hours every delivery is signed with both the old and the new secret, so the receiver can switch without missing a message."
        confirmLabel="Rotate secret"
        confirmColor="blue"
        onConfirm={() => rotate.mutateAsync({ id: endpoint.id })}
      />
      <ConfirmDialog
        opened={dialog === "disable"}
        onClose={close}
        title={`Disable ${label}?`}
        message="Nothing more is sent to it, and the deliveries still waiting fail. After enabling it again, replay what it missed."
        confirmLabel="Disable endpoint"
        onConfirm={() => disable.mutateAsync({ id: endpoint.id })}
      />
      <ConfirmDialog
        opened={dialog === "delete"}
        onClose={close}
        title={`Delete ${label}?`}
        message="The endpoint and its delivery log are deleted. This cannot be undone."
        confirmLabel="Delete endpoint"
        onConfirm={() => remove.mutateAsync({ id: endpoint.id })}
      />
      <Modal
        opened={secret !== null}
        onClose={() => setSecret(null)}
        title="New signing secret"
        centered
        size="lg"
        closeOnClickOutside={false}
        closeOnEscape={false}
      >
        {secret ? <WebhookSecretOnce secret={secret} rotated onDone={() => setSecret(null)} /> : null}
      </Modal>
    </>
  );
}
