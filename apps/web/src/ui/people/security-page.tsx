"use client";
/**
 * Password and two-factor sign-in of the signed-in person (staff or member): change the password (the other
 * sessions end), turn two-factor sign-in on (with recovery codes shown once) or off (with the password or a code).
 */
import { Alert, Button, Paper, PasswordInput, Stack, Text } from "@mantine/core";
import { PasswordChange, TwoFactorDisable } from "@petstore/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { PageHeader, SectionTitle, StateBadge } from "../components/page";
import { useNotifiedMutation } from "../feedback";
import { formatNumber } from "../format";
import { useZodForm } from "../forms/use-zod-form";
import { useTRPC } from "../trpc";
import { TwoFactorSetup } from "./two-factor-setup";

export function SecurityPage() {
  return (
    <>
      <PageHeader
        title="Password and two-factor sign-in"
        description="Change your password, and ask for a code from your phone at each sign-in."
      />
      <Stack gap="xl" maw={560}>
        <ChangePassword />
        <TwoFactor />
      </Stack>
    </>
  );
}

function ChangePassword() {
  const trpc = useTRPC();
  const form = useZodForm(PasswordChange, { currentPassword: "", newPassword: "" }, (v) => v);
  const change = useNotifiedMutation(trpc.security.changePassword.mutationOptions(), {
    invalidate: [trpc.sessions.pathKey()],
    form,
    success: ({ sessionsEnded }) =>
      `Your password is changed. ${formatNumber(sessionsEnded)} other session${sessionsEnded === 1 ? "" : "s"} ended.`,
    failure: "Your password was not changed",
    onDone: () => form.reset(),
  });
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="change-password">
      <form onSubmit={form.onSubmit((input) => change.mutate(input))} noValidate>
        <Stack>
          <SectionTitle id="change-password">Change your password</SectionTitle>
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            {...form.field("currentPassword")}
          />
          <PasswordInput
            label="New password"
            description="At least 12 characters. Your other sessions end."
            autoComplete="new-password"
            required
            {...form.field("newPassword")}
          />
          <Button type="submit" loading={change.isPending} w="fit-content">
            Change password
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

function TwoFactor() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.security.status.queryOptions());
  const begin = useMutation(trpc.security.begin.mutationOptions());
  const confirm = useMutation(trpc.security.confirm.mutationOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.security.pathKey() });
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="two-factor">
      <Stack>
        <SectionTitle id="two-factor">
          Two-factor sign-in{" "}
          {status.data ? (
            <StateBadge color={status.data.enabled ? "teal" : "gray"}>
              {status.data.enabled ? "On" : "Off"}
            </StateBadge>
          ) : null}
        </SectionTitle>
        {status.data?.required && !status.data.enabled ? (
          <Alert color="orange">Two-factor sign-in is required for you: turn it on.</Alert>
        ) : null}
        {status.data?.enabled ? (
          <>
            <Text size="sm">
              Each sign-in asks for a code from your app. Recovery codes left:{" "}
              {formatNumber(status.data.recoveryCodesLeft)}.
            </Text>
            <TurnOff onDone={refresh} />
          </>
        ) : status.data ? (
          <TwoFactorSetup
            begin={() => begin.mutateAsync()}
            confirm={(code) => confirm.mutateAsync({ code })}
            onDone={refresh}
          />
        ) : null}
      </Stack>
    </Paper>
  );
}

function TurnOff({ onDone }: { onDone(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(TwoFactorDisable, { password: "" }, (v) => ({ password: v.password }));
  const disable = useNotifiedMutation(trpc.security.disable.mutationOptions(), {
    invalidate: [trpc.security.pathKey()],
    form,
    success: () => "Two-factor sign-in is off.",
    failure: "Two-factor sign-in is still on",
    onDone,
  });
  return (
    <form onSubmit={form.onSubmit((input) => disable.mutate(input))} noValidate>
      <Stack>
        <PasswordInput
          label="Your password, to turn it off"
          autoComplete="current-password"
          required
          {...form.field("password")}
        />
        <Button type="submit" color="red" variant="light" loading={disable.isPending} w="fit-content">
          Turn off two-factor sign-in
        </Button>
      </Stack>
    </form>
  );
}
