"use client";
/**
 * Accepting an invitation: the page names the account, the email and the role the link offers, and asks for the
 * new member's name and a password; accepting signs them in and opens the portal. A link that was used, expired
 * or mistyped gets a message saying so instead of the form.
 */
import {
  Alert,
  Anchor,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { InvitationAccept, Password, UserName } from "@petstore/contracts";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { errorMessage } from "@/admin/feedback";
import { formatDateTime } from "@/admin/format";
import { onValidSubmit } from "@/admin/forms/submit";
import { hasCode, useTRPC } from "@/admin/trpc";
import { maxLengthOf, useZodForm } from "@/admin/use-zod-form";
import type { RouterOutputs } from "@/server/trpc/router";

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
        Already a member?{" "}
        <Anchor component={Link} href="/portal/sign-in">
          Sign in
        </Anchor>
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
      onSuccess: () => window.location.assign("/portal"),
      onError: (error) => form.setServerErrors(error),
    }),
  );
  const submit = onValidSubmit(form, (input) => accept.mutate(input));
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <div>
          <Title order={1} size="h2">
            Join {preview.accountName}
          </Title>
          <Text c="dimmed" size="sm">
            You are invited to {preview.accountName} on the Pet Store developer portal as{" "}
            {preview.role === "owner" ? "an owner" : "a developer"}.
          </Text>
        </div>
        {accept.isError && !Object.keys(form.errors).length ? (
          <Alert color="red" role="alert" title="Could not accept the invitation">
            {errorMessage(accept.error)}
          </Alert>
        ) : null}
        <TextInput label="Email" value={preview.email} readOnly autoComplete="username" />
        <TextInput
          label="Your name"
          required
          autoFocus
          autoComplete="name"
          value={form.values.name}
          onChange={(e) => form.setValue("name", e.currentTarget.value)}
          error={form.errors.name}
          maxLength={maxLengthOf(UserName)}
        />
        <PasswordInput
          label="Password"
          description="At least 12 characters."
          required
          autoComplete="new-password"
          value={form.values.password}
          onChange={(e) => form.setValue("password", e.currentTarget.value)}
          error={form.errors.password}
          maxLength={maxLengthOf(Password)}
        />
        <Button type="submit" loading={accept.isPending || accept.isSuccess} fullWidth>
          Accept and sign in
        </Button>
        <Text size="xs" c="dimmed">
          This link works until {formatDateTime(preview.expiresAt)}.
        </Text>
      </Stack>
    </form>
  );
}
