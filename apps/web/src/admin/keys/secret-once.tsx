"use client";
/** Shows a newly issued secret exactly once, with a copy button and the warning that it will not be shown again. */
import { Alert, Button, CopyButton, Group, Stack, TextInput } from "@mantine/core";

export function SecretOnce({ secret, prefix, onDone }: { secret: string; prefix: string; onDone(): void }) {
  return (
    <Stack>
      <Alert color="orange" title="Copy this key now" role="alert">
        This is the only time the full key is shown. It is stored only as a hash, so it cannot be shown again;
        if it is lost, roll the key to get a new one. In lists it appears as <strong>{prefix}…</strong>
      </Alert>
      <TextInput
        label="New API key"
        value={secret}
        readOnly
        onFocus={(e) => e.currentTarget.select()}
        styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        data-testid="new-api-key"
      />
      <Group justify="space-between">
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Button color={copied ? "teal" : "blue"} variant={copied ? "light" : "filled"} onClick={copy}>
              {copied ? "Copied" : "Copy key"}
            </Button>
          )}
        </CopyButton>
        <Button variant="default" onClick={onDone}>
          I have stored the key
        </Button>
      </Group>
    </Stack>
  );
}
