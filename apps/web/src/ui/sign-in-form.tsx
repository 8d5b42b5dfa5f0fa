"use client";
/**
 * Email and password sign-in, for staff and members alike, each sent on to their own side (`to`). A failure says
 * one thing whatever was wrong (the server's words reveal no email); throttling says when sign-in opens again. A
 * person with two-factor sign-in then gives a code (or a recovery code); one who must set it up goes to `enrol`.
 */
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { SecondFactorCode, SignIn } from "@petstore/contracts";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Hint, RouteLink } from "./components/page";
import { errorMessage, retryAfterSeconds } from "./feedback";
import { formatTime } from "./format";
import { useZodForm } from "./forms/use-zod-form";
import { useTRPC } from "./trpc";

export function SignInForm({
  title,
  intro,
  to,
  notice,
  paths,
}: {
  /** The page's heading, e.g. "Pet Store admin". */
  title: string;
  intro: string;
  /** Where a staff user and a member go after signing in. */
  to: { staff: string; member: string };
  /** Why the visitor is here (their session ended), shown above the form. */
  notice?: { title: string; text: string };
  /** This side's "forgot password" page and its two-factor enrolment page. */
  paths: { forgot: string; enrol: string };
}) {
  const trpc = useTRPC();
  const form = useZodForm(SignIn, { email: "", password: "" }, (v) => ({
    email: v.email.trim(),
    password: v.password,
  }));
  const [opensAt, setOpensAt] = useState<Date | null>(null);
  const [askCode, setAskCode] = useState(false);
  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      onSuccess: ({ user, stage }) => {
        if (stage === "totp") setAskCode(true);
        else if (stage === "enrol") window.location.assign(paths.enrol);
        else window.location.assign(user.accountId ? to.member : to.staff);
      },
      onError: (error) => {
        form.setServerErrors(error);
        const wait = retryAfterSeconds(error);
        setOpensAt(wait ? new Date(Date.now() + wait * 1000) : null);
      },
    }),
  );
  if (askCode) return <CodeStep title={title} to={to} />;
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
            <Text size="sm">
              <RouteLink href={paths.forgot}>Forgot your password?</RouteLink>
            </Text>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}

/** The second step of a sign-in with two-factor sign-in on: the app's code or a recovery code. */
function CodeStep({ title, to }: { title: string; to: { staff: string; member: string } }) {
  const trpc = useTRPC();
  const form = useZodForm(SecondFactorCode, { code: "" }, (v) => ({ code: v.code.trim() }));
  const [opensAt, setOpensAt] = useState<Date | null>(null);
  const verify = useMutation(
    trpc.auth.secondFactor.mutationOptions({
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
        <form onSubmit={form.onSubmit((input) => verify.mutate(input))} noValidate>
          <Stack>
            <div>
              <Title order={1} size="h2">
                {title}
              </Title>
              <Hint>Enter the 6-digit code your authenticator app shows, or one of your recovery codes.</Hint>
            </div>
            {verify.isError && !Object.keys(form.errors).length ? (
              <Alert color="red" role="alert" title="Sign-in failed">
                {errorMessage(verify.error)}
                {opensAt ? ` Sign-in opens again at ${formatTime(opensAt)}.` : null}
              </Alert>
            ) : null}
            <TextInput
              label="Code"
              autoFocus
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              {...form.field("code")}
              data-autofocus
            />
            <Button type="submit" loading={verify.isPending || verify.isSuccess} fullWidth>
              Verify
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
