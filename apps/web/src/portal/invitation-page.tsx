"use client";
/**
 * Accepting an invitation: the account, email and role the link offers, then the new member's name and password;
 * accepting signs them in. A used, expired or mistyped link says so instead.
 */
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { InvitationAccept } from "@petstore/contracts";
import { useMutation, useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@/server/trpc/router";
import { Hint, RouteLink } from "@/ui/components/page";
import { errorMessage } from "@/ui/feedback";
import { formatDateTime } from "@/ui/format";
import { useZodForm } from "@/ui/forms/use-zod-form";
import { hasCode, useTRPC } from "@/ui/trpc";

type Preview = RouterOutputs["portal"]["invitation"];

export function InvitationPage({ token }: { token: string }) {
  const trpc = useTRPC();
  const invitation = useQuery({
    ...trpc.portal.invitation.queryOptions({ token }),
    refetchOnWindowFocus: false,
  });
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={460}>
        {invitation.isPending ? (
          <Text aria-busy="true">Checking your invitation…</Text>
        ) : invitation.isError ? (
          <InvalidLink error={invitation.error} />
        ) : (
          <AcceptForm token={token} preview={invitation.data} />
        )}
      </Paper>
    </Center>
  );
}

function InvalidLink({ error }: { error: unknown }) {
  const invalid = hasCode(error, "NOT_FOUND") || hasCode(error, "BAD_REQUEST");
  return (
    <Stack>
      <Title order={1} size="h2">
        {invalid ? "This invitation link does not work" : "Could not check your invitation"}
      </Title>
      <Alert color="red" role="alert">
        {invalid
          ? "It was already used, it expired (links work for 72 hours), or it was mistyped. Ask the person who invited you for a new link."
          : errorMessage(error)}
      </Alert>
      <Text size="sm">
        Already a member? <RouteLink href="/portal/sign-in">Sign in</RouteLink>
      </Text>
    </Stack>
  );
}

function AcceptForm({ token, preview }: { token: string; preview: Preview }) {
  const trpc = useTRPC();
  const form = useZodForm(InvitationAccept, { name: "", password: "" }, (v) => ({
    token,
    name: v.name,
    password: v.password,
  }));
  const accept = useMutation(
    trpc.portal.acceptInvitation.mutationOptions({
      // An account that requires two-factor sign-in sends its new member to set it up first.
      onSuccess: ({ stage }) =>
        window.location.assign(stage === "enrol" ? "/portal/sign-in/two-factor" : "/portal"),
      onError: (error) => form.setServerErrors(error),
    }),
  );
  return (
    <form onSubmit={form.onSubmit((input) => accept.mutate(input))} noValidate>
      <Stack>
        <div>
          <Title order={1} size="h2">
            Join {preview.accountName}
          </Title>
          <Hint>
            You are invited to {preview.accountName} on the Pet Store developer portal as{" "}
            {preview.role === "owner" ? "an owner" : "a developer"}.
          </Hint>
        </div>
        {accept.isError && !Object.keys(form.errors).length ? (
          <Alert color="red" role="alert" title="Could not accept the invitation">
            {errorMessage(accept.error)}
          </Alert>
        ) : null}
        <TextInput label="Email" value={preview.email} readOnly autoComplete="username" />
        <TextInput label="Your name" required autoFocus autoComplete="name" {...form.field("name")} />
        <PasswordInput
          label="Password"
          description="At least 12 characters."
          required
          autoComplete="new-password"
          {...form.field("password")}
        />
        <Button type="submit" loading={accept.isPending || accept.isSuccess} fullWidth>
          Accept and sign in
        </Button>
        <Hint size="xs">This link works until {formatDateTime(preview.expiresAt)}.</Hint>
      </Stack>
    </form>
  );
}
