"use client";
/**
 * The frame of the dashboard and of the portal: a skip link, a header (menu toggle on phones, product name, who is
 * signed in, sign-out), and the navigation its layout gives as data; it provides the signed-in user to the pages.
 */
import { AppShell, Burger, Button, Group, NavLink, ScrollArea, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { createContext, type ReactNode, useContext } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { Hint, StateBadge } from "./components/page";
import { notifyError } from "./feedback";
import { leaveTo, useTRPC } from "./trpc";

export type CurrentUser = NonNullable<RouterOutputs["auth"]["me"]>;

const UserContext = createContext<CurrentUser | null>(null);

/** The signed-in user (resolved by the layout from the session cookie). @throws outside a Shell. */
export function useCurrentUser(): CurrentUser {
  const user = useContext(UserContext);
  if (!user) throw new Error("useCurrentUser outside Shell");
  return user;
}

export interface NavItem {
  href: string;
  label: string;
  /** A path prefix the link also stands for (the account page for its keys' pages). */
  also?: string;
}

export function Shell({
  user,
  product,
  home,
  signInPath,
  nav,
  links,
  children,
}: {
  user: CurrentUser;
  /** The header's name, e.g. "Pet Store admin". */
  product: string;
  /** The first page; its link is active there only. */
  home: string;
  signInPath: string;
  /** Names the navigation: "Dashboard" labels the bar and "Dashboard pages" its links. */
  nav: string;
  links: NavItem[];
  children: ReactNode;
}) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const pathname = usePathname();
  const trpc = useTRPC();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSuccess: () => leaveTo(signInPath),
      onError: (error) => notifyError("Could not sign out", error),
    }),
  );
  const active = ({ href, also }: NavItem) =>
    pathname === href ||
    (href !== home && pathname.startsWith(`${href}/`)) ||
    (also !== undefined && pathname.startsWith(also));
  return (
    <UserContext value={user}>
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
            <Group gap="sm" wrap="nowrap" miw={0}>
              <Burger
                opened={opened}
                onClick={toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label="Toggle navigation"
              />
              {/* Smaller on a phone, and wrapping rather than cut: the name stays whole beside "Sign out". */}
              <Text
                fw={700}
                component={Link}
                href={home}
                c="inherit"
                td="none"
                fz={{ base: "sm", xs: "md" }}
                lh={1.2}
              >
                {product}
              </Text>
            </Group>
            <Group gap="xs" wrap="nowrap">
              <Text size="sm" truncate maw={200} visibleFrom="xs">
                {user.name}
              </Text>
              <StateBadge
                color={user.role === "admin" || user.role === "owner" ? "grape" : "blue"}
                visibleFrom="xs"
              >
                {user.role}
              </StateBadge>
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
        <AppShell.Navbar p="xs" aria-label={nav}>
          <AppShell.Section grow component={ScrollArea}>
            <nav aria-label={`${nav} pages`}>
              {links.map((link) => (
                <NavLink
                  key={link.href}
                  component={Link}
                  href={link.href}
                  label={link.label}
                  active={active(link)}
                  aria-current={active(link) ? "page" : undefined}
                  onClick={close}
                />
              ))}
            </nav>
          </AppShell.Section>
          <Hint size="xs" truncate p="xs">
            Signed in as {user.email}
          </Hint>
        </AppShell.Navbar>
        <AppShell.Main id="main" tabIndex={-1}>
          {children}
        </AppShell.Main>
      </AppShell>
    </UserContext>
  );
}
