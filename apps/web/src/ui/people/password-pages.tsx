"use client";
/**
 * "Forgot password" (an email, answered the same whether it has a sign-in) and the reset link's page (a new
 * password, which signs the person out everywhere), for the dashboard and the portal alike.
 */
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { PasswordResetRequest, PasswordResetSet, PasswordResetToken } from "@petstore/contracts";
import { useMutation } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Hint, RouteLink } from "../components/page";
import { errorMessage } from "../feedback";
import { useZodForm } from "../forms/use-zod-form";
import { hasCode, useTRPC } from "../trpc";

const Card = ({ children }: { children: ReactNode }) => (
  <Center mih="100vh" p="md" component="main">
    <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
      {children}
    </Paper>
  </Center>
);

/** Asks for a reset link; `signIn` is this side's sign-in page. */
export function ForgotPasswordPage({ signIn }: { signIn: string }) {
  const trpc = useTRPC();
  const form = useZodForm(PasswordResetRequest, { email: "" }, (v) => ({ email: v.email.trim() }));
  const request = useMutation(
    trpc.auth.requestPasswordReset.mutationOptions({ onError: (e) => form.setServerErrors(e) }),
  );
  return (
    <Card>
      <form onSubmit={form.onSubmit((input) => request.mutate(input))} noValidate>
        <Stack>
          <div>
            <Title order={1} size="h2">
              Forgot your password?
            </Title>
            <Hint>We mail a link to choose a new one. It works once, for one hour.</Hint>
          </div>
          {request.isSuccess ? (
            <Alert color="blue" role="status" title="Check your mail">
              If this email has a Pet Store sign-in, a reset link is on its way.
            </Alert>
          ) : null}
          {request.isError && !Object.keys(form.errors).length ? (
            <Alert color="red" role="alert" title="No link was sent">
              {errorMessage(request.error)}
            </Alert>
          ) : null}
          <TextInput
            label="Email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            {...form.field("email")}
          />
          <Button type="submit" loading={request.isPending}>
            Send the link
          </Button>
          <Text size="sm">
            <RouteLink href={signIn}>Back to sign-in</RouteLink>
          </Text>
        </Stack>
      </form>
    </Card>
  );
}

/** Sets a new password with the link's `token`; `signIn` is this side's sign-in page. */
export function ResetPasswordPage({ token, signIn }: { token: string; signIn: string }) {
  const trpc = useTRPC();
  const form = useZodForm(PasswordResetSet, { password: "" }, (v) => ({ token, password: v.password }));
  const reset = useMutation(
    trpc.auth.resetPassword.mutationOptions({ onError: (e) => form.setServerErrors(e) }),
  );
  // A mistyped link is told at once, not after a new password is typed.
  const malformed = !PasswordResetToken.safeParse(token).success;
  const invalid =
    malformed ||
    (reset.isError && (hasCode(reset.error, "NOT_FOUND") || hasCode(reset.error, "BAD_REQUEST")));
  return (
    <Card>
      {reset.isSuccess ? (
        <Stack>
          <Title order={1} size="h2">
            Your password is changed
          </Title>
          <Alert color="teal" role="status">
            You were signed out everywhere. Sign in with your new password.
          </Alert>
          <Button component="a" href={signIn}>
            Sign in
          </Button>
        </Stack>
      ) : (
        <form onSubmit={form.onSubmit((input) => reset.mutate(input))} noValidate>
          <Stack>
            <Title order={1} size="h2">
              Choose a new password
            </Title>
            {malformed || (reset.isError && !Object.keys(form.errors).length) ? (
              <Alert color="red" role="alert" title={invalid ? "This link does not work" : "Not changed"}>
                {invalid
                  ? "It was already used, it expired (links work for one hour), or it was mistyped. Ask for a new one."
                  : errorMessage(reset.error)}
              </Alert>
            ) : null}
            <PasswordInput
              label="New password"
              description="At least 12 characters."
              autoComplete="new-password"
              required
              autoFocus
              {...form.field("password")}
            />
            <Button type="submit" loading={reset.isPending}>
              Set the new password
            </Button>
            <Text size="sm">
              <RouteLink href={`${signIn.replace(/sign-in$/, "forgot-password")}`}>
                Ask for a new link
              </RouteLink>
            </Text>
          </Stack>
        </form>
      )}
    </Card>
  );
}
