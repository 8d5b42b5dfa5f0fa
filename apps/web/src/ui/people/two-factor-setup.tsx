"use client";
/**
 * Turning on two-factor sign-in: the secret for an authenticator app (its `otpauth://` link and the key to type in),
 * a first code that confirms it, then the recovery codes, shown once.
 */
import { Alert, Button, Code, List, Stack, Text, TextInput } from "@mantine/core";
import { SecondFactorCode } from "@petstore/contracts";
import { useState } from "react";
import { errorMessage } from "../feedback";
import { useZodForm } from "../forms/use-zod-form";

export function TwoFactorSetup({
  begin,
  confirm,
  onDone,
}: {
  /** Starts the enrolment: the secret (base32) and its `otpauth://` URI. */
  begin(): Promise<{ secret: string; uri: string }>;
  /** Confirms it with a first code: the recovery codes. */
  confirm(code: string): Promise<{ recoveryCodes: string[] }>;
  /** After the person says they stored the recovery codes. */
  onDone(): void;
}) {
  const [secret, setSecret] = useState<{ secret: string; uri: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const form = useZodForm(SecondFactorCode, { code: "" }, (v) => ({ code: v.code.trim() }));
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      if (!form.setServerErrors(e)) setError(e);
    } finally {
      setBusy(false);
    }
  };

  if (codes)
    return (
      <Stack>
        <Alert color="orange" role="alert" title="Store your recovery codes now">
          Each code signs you in once when you do not have your app. They are shown only now.
        </Alert>
        <List spacing={4} data-testid="recovery-codes" aria-label="Recovery codes">
          {codes.map((c) => (
            <List.Item key={c}>
              <Code>{c}</Code>
            </List.Item>
          ))}
        </List>
        <Button onClick={onDone}>I have stored the recovery codes</Button>
      </Stack>
    );
  return (
    <Stack>
      {error ? (
        <Alert color="red" role="alert" title="Two-factor sign-in was not turned on">
          {errorMessage(error)}
        </Alert>
      ) : null}
      {secret ? (
        <form
          onSubmit={form.onSubmit(({ code }) =>
            run(async () => setCodes((await confirm(code)).recoveryCodes)),
          )}
          noValidate
        >
          <Stack>
            <Text size="sm">
              Add this key to your authenticator app (open the link on your phone, or type the key in), then
              enter the 6-digit code it shows.
            </Text>
            <TextInput
              label="Setup link"
              value={secret.uri}
              readOnly
              onFocus={(e) => e.currentTarget.select()}
            />
            <TextInput
              label="Secret key"
              value={secret.secret}
              readOnly
              onFocus={(e) => e.currentTarget.select()}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            />
            <TextInput
              label="Code from your app"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              {...form.field("code")}
            />
            <Button type="submit" loading={busy}>
              Turn on two-factor sign-in
            </Button>
          </Stack>
        </form>
      ) : (
        <Button loading={busy} onClick={() => run(async () => setSecret(await begin()))}>
          Set up two-factor sign-in
        </Button>
      )}
    </Stack>
  );
}
