"use client";
/**
 * Email and password sign-in, for staff and members alike, each sent on to their own side (`to`). A failure says
 * one thing whatever was wrong (the server's words reveal no email); throttling says when sign-in opens again.
 */
import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from "@mantine/core";
import { SignIn } from "@petstore/contracts";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Hint } from "./components/page";
import { errorMessage, retryAfterSeconds } from "./feedback";
import { formatTime } from "./format";
import { useZodForm } from "./forms/use-zod-form";
import { useTRPC } from "./trpc";

export function SignInForm({
  title,
  intro,
  to,
  notice,
}: {
  /** The page's heading, e.g. "Pet Store admin". */
  title: string;
  intro: string;
  /** Where a staff user and a member go after signing in. */
  to: { staff: string; member: string };
  /** Why the visitor is here (their session ended), shown above the form. */
  notice?: { title: string; text: string };
}) {
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
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={form.onSubmit((input) => signIn.mutate(input))} noValidate>
          <Stack>
            <div>
              <Title order={1} size="h2">
                {title}
              </Title>
              <Hint>{intro}</Hint>
            </div>
            {notice && !signIn.isError ? (
              <Alert color="blue" role="status" title={notice.title}>
                {notice.text}
              </Alert>
            ) : null}
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
              {...form.field("email")}
              data-autofocus
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              {...form.field("password")}
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
