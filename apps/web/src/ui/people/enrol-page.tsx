"use client";
/**
 * Enrolment of a person who must sign in with a second factor (their sign-in waits at stage `enrol`): the setup,
 * then on to their side. A lapsed sign-in says so.
 */
import { Alert, Center, Paper, Stack, Text, Title } from "@mantine/core";
import { useMutation, useQuery } from "@tanstack/react-query";
import { RouteLink } from "../components/page";
import { useTRPC } from "../trpc";
import { TwoFactorSetup } from "./two-factor-setup";

export function EnrolPage({ signIn }: { signIn: string }) {
  const trpc = useTRPC();
  const pending = useQuery({ ...trpc.auth.pending.queryOptions(), refetchOnWindowFocus: false });
  const begin = useMutation(trpc.auth.enrolBegin.mutationOptions());
  const confirm = useMutation(trpc.auth.enrolConfirm.mutationOptions());
  const home = confirm.data?.user.accountId ? "/portal" : "/admin";
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={520}>
        <Stack>
          <Title order={1} size="h2">
            Set up two-factor sign-in
          </Title>
          {pending.isPending ? (
            <Text aria-busy="true">Checking your sign-in…</Text>
          ) : pending.data?.stage === "enrol" || confirm.isSuccess ? (
            <>
              <Text size="sm">
                Your sign-in needs a code from an authenticator app on your phone. Set it up to continue as{" "}
                {pending.data?.email}.
              </Text>
              <TwoFactorSetup
                begin={() => begin.mutateAsync()}
                confirm={(code) => confirm.mutateAsync({ code })}
                onDone={() => window.location.assign(home)}
              />
            </>
          ) : (
            <Alert color="red" role="alert">
              This sign-in has expired. <RouteLink href={signIn}>Sign in again</RouteLink>.
            </Alert>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
