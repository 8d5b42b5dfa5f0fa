"use client";
/**
 * The dashboard frame: header (menu toggle on phones, product name, who is signed in), navigation showing
 * only the pages the user's role may use, and sign-out. A skip link lets keyboard users jump to the content.
 */
import { AppShell, Badge, Burger, Button, Group, NavLink, ScrollArea, Stack, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { type CurrentUser, CurrentUserProvider } from "./current-user";
import { notifyError } from "./feedback";
import { leaveTo, useTRPC } from "./trpc";

const LINKS: { href: string; label: string; adminOnly?: boolean }[] = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/animals", label: "Animals" },
  { href: "/admin/categories", label: "Categories" },
  { href: "/admin/keys", label: "API keys", adminOnly: true },
  { href: "/admin/accounts", label: "Accounts", adminOnly: true },
  { href: "/admin/plans", label: "Plans", adminOnly: true },
  { href: "/admin/users", label: "Users", adminOnly: true },
  { href: "/admin/webhooks", label: "Webhooks", adminOnly: true },
  { href: "/admin/audit", label: "Audit log", adminOnly: true },
  { href: "/admin/sessions", label: "Your sessions" },
];

function isActive(pathname: string, href: string) {
  return href === "/admin" ? pathname === "/admin" : pathname === href || pathname.startsWith(`${href}/`);
}

export function AdminShell({ user, children }: { user: CurrentUser; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const pathname = usePathname();
  const trpc = useTRPC();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSuccess: () => leaveTo("/admin/sign-in"),
      onError: (error) => notifyError("Could not sign out", error),
    }),
  );
  const links = LINKS.filter((l) => !l.adminOnly || user.role === "admin");

  return (
    <CurrentUserProvider user={user}>
      <a href="#main" className="petstore-skip-link">
        Skip to content
      </a>
      <AppShell
        header={{ height: 56 }}
        navbar={{ width: 230, breakpoint: "sm", collapsed: { mobile: !opened } }}
        padding={{ base: "sm", sm: "lg" }}
      >
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap">
              <Burger
                opened={opened}
                onClick={toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label="Toggle navigation"
              />
              <Text fw={700} component={Link} href="/admin" c="inherit" td="none">
                Pet Store admin
              </Text>
            </Group>
            <Group gap="xs" wrap="nowrap" visibleFrom="xs">
              <Text size="sm" truncate maw={220}>
                {user.name}
              </Text>
              <Badge variant="light" color={user.role === "admin" ? "grape" : "blue"}>
                {user.role}
              </Badge>
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="xs" aria-label="Dashboard">
          <AppShell.Section grow component={ScrollArea}>
            <nav aria-label="Dashboard pages">
              {links.map((link) => (
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
          </AppShell.Section>
          <AppShell.Section>
            <Stack gap={4} p="xs">
              <Text size="xs" c="dimmed" truncate>
                Signed in as {user.email}
              </Text>
              <Button
                variant="default"
                size="xs"
                onClick={() => signOut.mutate()}
                loading={signOut.isPending}
              >
                Sign out
              </Button>
            </Stack>
          </AppShell.Section>
        </AppShell.Navbar>
        <AppShell.Main id="main" tabIndex={-1}>
          {children}
        </AppShell.Main>
      </AppShell>
    </CurrentUserProvider>
  );
}

/** Shown instead of an admin page to staff who reach its address directly. */
export function AdminOnlyNotice() {
  return (
    <Stack gap="sm" maw={520}>
      <Text fw={600} size="lg" component="h1">
        Admins only
      </Text>
      <Text size="sm">This page is only available to admins. Ask an admin if you need access.</Text>
      <Button component={Link} href="/admin" variant="default" w="fit-content">
        Back to the overview
      </Button>
    </Stack>
  );
}

/** Shown (with status 404) for addresses under /admin that match no page. */
export function NotFoundNotice() {
  return (
    <Stack gap="sm" maw={520}>
      <Text fw={600} size="lg" component="h1">
        Page not found
      </Text>
      <Text size="sm">
        There is no dashboard page at this address. It may have been mistyped, or the link may be out of date.
      </Text>
      <Button component={Link} href="/admin" variant="default" w="fit-content">
        Back to the overview
      </Button>
    </Stack>
  );
}
