"use client";
/**
 * The developer portal's frame: a header with the product name (a link to the account page), who is signed in
 * with their role, and sign-out; a skip link lets keyboard users jump to the content.
 */
import { AppShell, Badge, Button, Group, Text } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { type CurrentUser, CurrentUserProvider } from "@/admin/current-user";
import { notifyError } from "@/admin/feedback";
import { leaveTo, useTRPC } from "@/admin/trpc";

export function PortalShell({ user, children }: { user: CurrentUser; children: ReactNode }) {
  const trpc = useTRPC();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSuccess: () => leaveTo("/portal/sign-in"),
      onError: (error) => notifyError("Could not sign out", error),
    }),
  );
  return (
    <CurrentUserProvider user={user}>
      <a href="#main" className="petstore-skip-link">
        Skip to content
      </a>
      <AppShell header={{ height: 56 }} padding={{ base: "sm", sm: "lg" }}>
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            <Text fw={700} component={Link} href="/portal" c="inherit" td="none" truncate>
              Pet Store developer portal
            </Text>
            <Group gap="xs" wrap="nowrap">
              <Text size="sm" truncate maw={200} visibleFrom="xs">
                {user.name}
              </Text>
              <Badge variant="light" color={user.role === "owner" ? "grape" : "blue"} visibleFrom="xs">
                {user.role}
              </Badge>
              <Button
                variant="default"
                size="xs"
                onClick={() => signOut.mutate()}
                loading={signOut.isPending || signOut.isSuccess}
              >
                Sign out
              </Button>
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Main id="main" tabIndex={-1}>
          {children}
        </AppShell.Main>
      </AppShell>
    </CurrentUserProvider>
  );
}
