"use client";
/** A key's page header and settings, on the admin's key page and the portal's; `more` adds fields. */
import { Code, Group, Paper, SimpleGrid } from "@mantine/core";
import type { ReactNode } from "react";
import { Field, Hint, PageHeader, StateBadge } from "../components/page";
import { formatDateTime, formatNumber, planLabel } from "../format";
import { ScopeBadges } from "./key-fields";
import { type ApiKey, STATE_COLORS, STATE_LABELS } from "./key-meta";

type Summarized = Pick<
  ApiKey,
  | "name"
  | "state"
  | "prefix"
  | "plan"
  | "perMinute"
  | "effectivePerMinute"
  | "effectivePerDay"
  | "scopes"
  | "allowedIps"
  | "requestsToday"
  | "createdAt"
  | "lastUsedAt"
  | "expiresAt"
  | "revokedAt"
  | "leakedAt"
  | "leakSource"
  | "leakUrl"
> & { createdBy?: string };

export function KeySummary({
  apiKey: k,
  actions,
  more,
}: {
  apiKey: Summarized;
  actions: ReactNode;
  more?: ReactNode;
}) {
  return (
    <>
      <PageHeader
        title={
          <Group gap="sm" component="span">
            {k.name}
            <StateBadge color={STATE_COLORS[k.state]} size="lg">
              {STATE_LABELS[k.state]}
            </StateBadge>
            {k.leakedAt ? (
              <StateBadge color="red" size="lg">
                Leaked
              </StateBadge>
            ) : null}
          </Group>
        }
        description={<Code>{k.prefix}…</Code>}
        actions={actions}
      />
      <Paper withBorder p="md" mb="lg">
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md">
          <Field label="Plan">{planLabel(k.plan)}</Field>
          <Field label="Limits">
            {formatNumber(k.effectivePerMinute)}/min · {formatNumber(k.effectivePerDay)}/day
            {k.perMinute !== null ? " (custom)" : ""}
          </Field>
          <Field label="Scopes">
            <ScopeBadges scopes={k.scopes} />
          </Field>
          <Field label="IP allowlist">{k.allowedIps.length ? k.allowedIps.join(", ") : "Any address"}</Field>
          <Field label="Requests today">{formatNumber(k.requestsToday)}</Field>
          <Field label="Created">
            {formatDateTime(k.createdAt)}
            {k.createdBy ? <Hint size="xs">by {k.createdBy}</Hint> : null}
          </Field>
          <Field label="Last used">{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"}</Field>
          <Field label="Expires">{k.expiresAt ? formatDateTime(k.expiresAt) : "Never"}</Field>
          {k.revokedAt ? <Field label="Revoked">{formatDateTime(k.revokedAt)}</Field> : null}
          {k.leakedAt ? (
            <Field label="Leaked">
              {formatDateTime(k.leakedAt)}
              <Hint size="xs">
                {k.leakSource === "github" ? "reported by GitHub secret scanning" : "marked in the dashboard"}
                {k.leakUrl ? `: ${k.leakUrl}` : ""}
              </Hint>
            </Field>
          ) : null}
          {more}
        </SimpleGrid>
      </Paper>
    </>
  );
}
