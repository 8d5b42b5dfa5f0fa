"use client";
/**
 * Email/password sign-in. Failures show one message whatever was wrong (the server words it so that it
 * does not reveal whether the email exists); throttling says how long to wait and at what time (the
 * viewer's clock) sign-in opens again. Staff and members of consumer accounts share the form: each is sent on to
 * their own side (`to.staff`, `to.member`) whichever page they signed in on.
 */
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { SignIn } from "@petstore/contracts";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, retryAfterSeconds } from "../feedback";
import { formatTime } from "../format";
import { onValidSubmit } from "../forms/submit";
import { useTRPC } from "../trpc";
import { useZodForm } from "../use-zod-form";

export interface SignInFormProps {
  /** The page's heading, e.g. "Pet Store admin". */
  title: string;
  /** The line under the heading. */
  intro: string;
  /** Where a staff user and a member go after signing in. */
  to: { staff: string; member: string };
}

export function SignInForm({ title, intro, to }: SignInFormProps) {
  const trpc = useTRPC();
  const form = useZodForm(SignIn, { email: "", password: "" }, (v) => ({
    email: v.email.trim(),
    password: v.password,
  }));
  const [opensAt, setOpensAt] = useState<Date | null>(null);
  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      onSuccess: ({ user }) => window.location.assign(user.accountId ? to.member : to.staff),
      onError: (error) => {
        form.setServerErrors(error);
        const wait = retryAfterSeconds(error);
        setOpensAt(wait ? new Date(Date.now() + wait * 1000) : null);
      },
    }),
  );
  const submit = onValidSubmit(form, (input) => signIn.mutate(input));

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={submit} noValidate>
          <Stack>
            <div>
              <Title order={1} size="h2">
                {title}
              </Title>
              <Text c="dimmed" size="sm">
                {intro}
              </Text>
            </div>
            {signIn.isError && !Object.keys(form.errors).length ? (
              <Alert color="red" role="alert" title="Sign-in failed">
                {errorMessage(signIn.error)}
                {opensAt ? ` Sign-in opens again at ${formatTime(opensAt)}.` : null}
              </Alert>
            ) : null}
            <TextInput
              label="Email"
              type="email"
              // The page's one task: the cursor waits in its first field.
              autoFocus
              autoComplete="username"
              required
              value={form.values.email}
              onChange={(e) => form.setValue("email", e.currentTarget.value)}
              error={form.errors.email}
              data-autofocus
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={form.values.password}
              onChange={(e) => form.setValue("password", e.currentTarget.value)}
              error={form.errors.password}
            />
            <Button type="submit" loading={signIn.isPending || signIn.isSuccess} fullWidth>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
