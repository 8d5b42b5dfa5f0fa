"use client";
/** The account's name, plan and its limits, live keys against the plan's cap, and a banner while suspended. */
import { Alert, Paper, SimpleGrid } from "@mantine/core";
import { Field } from "@/admin/components/field";
import { PageHeader } from "@/admin/components/page-header";
import { formatDateTime, formatNumber, planLabel } from "@/admin/format";
import type { PortalAccount } from "./portal-meta";

/** "2 of 3", or "2 (no limit)" on a plan without a cap. */
export const liveKeysText = (a: Pick<PortalAccount, "keys" | "maxKeys">) =>
  a.maxKeys === null
    ? `${formatNumber(a.keys)} (no limit)`
    : `${formatNumber(a.keys)} of ${formatNumber(a.maxKeys)}`;

export function AccountSummary({ account }: { account: PortalAccount }) {
  return (
    <>
      <PageHeader title={account.name} description="Your account in the Pet Store developer portal." />
      {account.state === "suspended" ? (
        <Alert color="red" title="This account is suspended" role="alert" mb="lg">
          Since {formatDateTime(account.suspendedAt)} the API refuses every key of this account, and no keys
          can be created. Contact Pet Store support to resume it.
        </Alert>
      ) : null}
      <Paper withBorder p="md" mb="xl" component="section" aria-label="Account summary">
        <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="md">
          <Field label="Plan">{planLabel(account.plan)}</Field>
          <Field label="Requests per minute">{formatNumber(account.perMinute)}</Field>
          <Field label="Requests per day">{formatNumber(account.perDay)}</Field>
          <Field label="Live keys">{liveKeysText(account)}</Field>
          <Field label="Requests today">{formatNumber(account.requestsToday)}</Field>
        </SimpleGrid>
      </Paper>
    </>
  );
}
