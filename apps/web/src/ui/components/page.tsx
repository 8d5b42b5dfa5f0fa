"use client";
/** The pieces of every page: headings, links, hints, badges, labelled values, wide-table frames, notices. */
import {
  Anchor,
  type AnchorProps,
  Badge,
  type BadgeProps,
  Button,
  type ElementProps,
  Group,
  Stack,
  Table,
  Text,
  type TextProps,
  Title,
  type TitleProps,
} from "@mantine/core";
import Link from "next/link";
import type { ReactNode } from "react";

type WithChildren<P> = P & { children?: ReactNode };

/** A link to another page of the app (next/link's client-side navigation), styled as Mantine's Anchor. */
export const RouteLink = ({ href, ...props }: WithChildren<AnchorProps> & { href: string }) => (
  <Anchor component={Link} href={href} {...props} />
);

/** A section's heading (h2) under the page's title. */
export const SectionTitle = (props: WithChildren<TitleProps>) => (
  <Title order={2} size="h3" mb="sm" {...props} />
);

/** Secondary text: an explanation, an empty list's line. */
export const Hint = (props: WithChildren<TextProps & ElementProps<"p", "color">>) => (
  <Text size="sm" c="dimmed" {...props} />
);

/** A state as a light badge (a key's, an account's, an animal's). */
export const StateBadge = (props: WithChildren<BadgeProps>) => (
  <Badge variant="light" style={{ overflow: "visible" }} {...props} />
);

/** The page's title (its one h1), with a description and actions, stacking on narrow screens. */
export function PageHeader({
  title,
  description,
  actions,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-end" mb="lg" gap="sm">
      <Stack gap={4}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {description ? (
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        ) : null}
      </Stack>
      {actions ? <Group gap="xs">{actions}</Group> : null}
    </Group>
  );
}

/** A labelled value of a detail page: a small dimmed label over the value, which wraps anywhere (URLs, ids). */
export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" component="div" style={{ overflowWrap: "anywhere" }}>
        {children}
      </Text>
    </Stack>
  );
}

/**
 * A wide table's frame, scrolling sideways on narrow screens: focusable, so the keyboard can scroll it, and
 * `position: relative`, so visually hidden header text stays inside it.
 */
export function TableScroll({
  label,
  minWidth,
  children,
}: {
  label: string;
  minWidth: number;
  children: ReactNode;
}) {
  return (
    <Table.ScrollContainer
      minWidth={minWidth}
      type="native"
      tabIndex={0}
      aria-label={label}
      role="region"
      style={{ position: "relative" }}
    >
      {children}
    </Table.ScrollContainer>
  );
}

/** " (you)" after a person's name in a list of people, on the signed-in person's own row. */
export function YouMarker({ shown }: { shown: boolean }) {
  return shown ? (
    <Text span c="dimmed" size="xs">
      {" "}
      (you)
    </Text>
  ) : null;
}

/** A page that is a notice (nothing at this address, admins only) with the way back. */
export function Notice({
  title,
  back,
  children,
}: {
  title: string;
  back: [string, string];
  children: ReactNode;
}) {
  return (
    <Stack gap="sm" maw={520}>
      <Title order={1} size="h2">
        {title}
      </Title>
      <Text size="sm">{children}</Text>
      <Button component={Link} href={back[0]} variant="default" w="fit-content">
        {back[1]}
      </Button>
    </Stack>
  );
}

/** The dashboard's 404, inside its frame: for an address that matches no page or names no record. */
export function NotFoundNotice() {
  return (
    <Notice title="Page not found" back={["/admin", "Back to the overview"]}>
      There is no dashboard page at this address. It may have been mistyped, or the link may be out of date.
    </Notice>
  );
}
