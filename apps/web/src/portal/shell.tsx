"use client";
/**
 * The developer portal's frame: a header with the product name (a link to the account page), who is signed in
 * with their role, and sign-out; the portal's pages in a navigation bar (behind a menu toggle on phones); a skip
 * link lets keyboard users jump to the content.
 */
import { AppShell, Badge, Burger, Button, Group, NavLink, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { type CurrentUser, CurrentUserProvider } from "@/admin/current-user";
import { notifyError } from "@/admin/feedback";
import { leaveTo, useTRPC } from "@/admin/trpc";

const LINKS = [
  { href: "/portal", label: "Overview and keys" },
  { href: "/portal/usage", label: "Usage" },
  { href: "/portal/requests", label: "Request log" },
  { href: "/portal/webhooks", label: "Webhooks" },
];

/** The account page also covers its keys' pages. */
const isActive = (pathname: string, href: string) =>
  href === "/portal"
    ? pathname === "/portal" || pathname.startsWith("/portal/keys/")
    : pathname === href || pathname.startsWith(`${href}/`);

export function PortalShell({ user, children }: { user: CurrentUser; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const pathname = usePathname();
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
      <AppShell
        header={{ height: 56 }}
        navbar={{ width: 210, breakpoint: "sm", collapsed: { mobile: !opened } }}
        padding={{ base: "sm", sm: "lg" }}
      >
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap" miw={0}>
              <Burger
                opened={opened}
                onClick={toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label="Toggle navigation"
              />
              <Text fw={700} component={Link} href="/portal" c="inherit" td="none" truncate>
                Pet Store developer portal
              </Text>
            </Group>
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
        <AppShell.Navbar p="xs" aria-label="Portal">
          <nav aria-label="Portal pages">
            {LINKS.map((link) => (
              <NavLink
                key={link.href}
                component={Link}
                href={link.href}
                label={link.label}
                active={isActive(pathname, link.href)}
                aria-current={isActive(pathname, link.href) ? "page" : undefined}
                onClick={close}
              />
            ))}
          </nav>
        </AppShell.Navbar>
        <AppShell.Main id="main" tabIndex={-1}>
          {children}
        </AppShell.Main>
      </AppShell>
    </CurrentUserProvider>
  );
}
