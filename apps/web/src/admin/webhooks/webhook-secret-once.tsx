"use client";
/** Shows a new webhook signing secret exactly once, with a copy button. */
import { Alert, Button, CopyButton, Group, Stack, TextInput } from "@mantine/core";

export function WebhookSecretOnce({
  secret,
  rotated,
  onDone,
}: {
  secret: string;
  rotated?: boolean;
  onDone(): void;
}) {
  return (
    <Stack>
      <Alert color="orange" title="Copy this signing secret now" role="alert">
        This is the only time the secret is shown. The receiver verifies every delivery with it (Standard
        Webhooks, e.g. the <code>standardwebhooks</code> package).
        {rotated
          ? " For the next 24 hours each delivery is signed with the old secret as well, so the receiver can switch over."
          : ""}
      </Alert>
      <TextInput
        label="Signing secret"
        value={secret}
        readOnly
        onFocus={(e) => e.currentTarget.select()}
        styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        data-testid="webhook-secret"
      />
      <Group justify="space-between">
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Button color={copied ? "teal" : "blue"} variant={copied ? "light" : "filled"} onClick={copy}>
              {copied ? "Copied" : "Copy secret"}
            </Button>
          )}
        </CopyButton>
        <Button variant="default" onClick={onDone}>
          I have stored the secret
        </Button>
      </Group>
    </Stack>
  );
}
