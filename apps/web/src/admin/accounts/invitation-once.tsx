"use client";
/**
 * Shows a new invitation link exactly once, with a copy button: the link is valid for 72 hours and for one
 * acceptance, and only its hash is stored, so it cannot be shown again.
 */
import { Alert, Button, CopyButton, Group, Stack, TextInput } from "@mantine/core";

export function InvitationOnce({ url, email, onDone }: { url: string; email: string; onDone(): void }) {
  return (
    <Stack>
      <Alert color="orange" title="Copy this invitation link now" role="alert">
        Send it to <strong>{email}</strong>. It is valid for 72 hours and can be used once. This is the only
        time it is shown: if it is lost, invite the person again.
      </Alert>
      <TextInput
        label="Invitation link"
        value={url}
        readOnly
        onFocus={(e) => e.currentTarget.select()}
        styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        data-testid="invitation-link"
      />
      <Group justify="space-between">
        <CopyButton value={url}>
          {({ copied, copy }) => (
            <Button color={copied ? "teal" : "blue"} variant={copied ? "light" : "filled"} onClick={copy}>
              {copied ? "Copied" : "Copy link"}
            </Button>
          )}
        </CopyButton>
        <Button variant="default" onClick={onDone}>
          Done
        </Button>
      </Group>
    </Stack>
  );
}
