"use client";
/** A secret shown once (an API key, a signing secret, an invitation link): the warning, a copy button, and "stored". */
import { Alert, Button, CopyButton, Group, Stack, TextInput } from "@mantine/core";
import type { ReactNode } from "react";

export function SecretOnce({
  title,
  label,
  value,
  noun,
  done,
  testId,
  onDone,
  children,
}: {
  /** The warning's title, e.g. "Copy this key now". */
  title: string;
  /** The field's label, e.g. "New API key". */
  label: string;
  value: string;
  /** What it is, for the buttons: "Copy key", "I have stored the key". */
  noun: string;
  /** The acknowledging button's label, if not "I have stored the {noun}". */
  done?: string;
  testId: string;
  onDone(): void;
  /** Why it is shown only now, and what to do if it is lost. */
  children: ReactNode;
}) {
  return (
    <Stack>
      <Alert color="orange" title={title} role="alert">
        {children}
      </Alert>
      <TextInput
        label={label}
        value={value}
        readOnly
        onFocus={(e) => e.currentTarget.select()}
        styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        data-testid={testId}
      />
      <Group justify="space-between">
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button color={copied ? "teal" : "blue"} variant={copied ? "light" : "filled"} onClick={copy}>
              {copied ? "Copied" : `Copy ${noun}`}
            </Button>
          )}
        </CopyButton>
        <Button variant="default" onClick={onDone}>
          {done ?? `I have stored the ${noun}`}
        </Button>
      </Group>
    </Stack>
  );
}

/** A new API key's secret, once (an issued, created or rolled key). */
export function KeySecretOnce({
  secret,
  prefix,
  onDone,
}: {
  secret: string;
  prefix: string;
  onDone(): void;
}) {
  return (
    <SecretOnce
      title="Copy this key now"
      label="New API key"
      value={secret}
      noun="key"
      testId="new-api-key"
      onDone={onDone}
    >
      This is the only time the full key is shown. It is stored only as a hash, so it cannot be shown again;
      if it is lost, roll the key to get a new one. In lists it appears as <strong>{prefix}…</strong>
    </SecretOnce>
  );
}
