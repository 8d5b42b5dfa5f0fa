"use client";
/**
 * One consumer account (admins): its plan, own limits and state, its figures, members and open invitations, its
 * keys (each linking its page), and its usage and request log as its members see them.
 */
import { Alert, Button, Code, Group, Paper, SimpleGrid } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { InviteDialog } from "@/ui/accounts/invite-dialog";
import { InvitationsTable, MembersTable } from "@/ui/accounts/people";
import { DataTable } from "@/ui/components/data-table";
import {
  Field,
  Hint,
  NotFoundNotice,
  PageHeader,
  RouteLink,
  SectionTitle,
  StateBadge,
} from "@/ui/components/page";
import { QueryState } from "@/ui/components/query-state";
import { formatDateTime, formatNumber, planLabel } from "@/ui/format";
import { STATE_COLORS } from "@/ui/keys/key-meta";
import { hasCode, useTRPC } from "@/ui/trpc";
import { BillingExport } from "@/ui/usage/billing-export";
import { MonthQuotaProgress } from "@/ui/usage/month-quota";
import { RequestLog } from "@/ui/usage/request-log";
import { type UsageDays, UsageView } from "@/ui/usage/usage-view";
import { ACCOUNT_STATE_COLORS, ACCOUNT_STATE_LABELS, type AccountDetail, keysOfCap } from "./account-meta";
import {
  AccountAlertsEditor,
  AccountLimitsEditor,
  AccountPlanSelect,
  SuspendButton,
} from "./account-settings";

export function AccountDetailPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const account = useQuery(trpc.accounts.get.queryOptions({ id }));
  const quota = useQuery(trpc.accounts.monthQuota.queryOptions({ id }));
  const [inviting, invite] = useDisclosure(false);

  if (hasCode(account.error, "NOT_FOUND")) return <NotFoundNotice />;
  return (
    <>
      <Group justify="space-between">
        <RouteLink href="/admin/accounts" size="sm">
          ← All accounts
        </RouteLink>
        <RouteLink href={`/admin/audit?entity=account&id=${id}`} size="sm">
          Audit log of this account →
        </RouteLink>
      </Group>
      <QueryState query={account} errorTitle="Could not load this account" skeletonRows={4}>
        {(a) => (
          <>
            <PageHeader
              title={
                <Group gap="sm" component="span">
                  {a.name}
                  <StateBadge color={ACCOUNT_STATE_COLORS[a.state]} size="lg">
                    {ACCOUNT_STATE_LABELS[a.state]}
                  </StateBadge>
                </Group>
              }
              description={`${planLabel(a.plan)} plan`}
              actions={
                <>
                  <Button size="sm" variant="default" onClick={invite.open}>
                    Invite member
                  </Button>
                  <SuspendButton account={a} />
                </>
              }
            />
            {a.state === "suspended" ? (
              <Alert color="red" title="This account is suspended" mb="lg">
                Since {formatDateTime(a.suspendedAt)} every key of the account answers 401, and its members
                cannot create keys. Resume it to let them work again.
              </Alert>
            ) : null}
            <Paper withBorder p="md" mb="lg">
              <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md">
                <Field label="Plan">{planLabel(a.plan)}</Field>
                <Field label="Live keys">{keysOfCap(a.keys, a.maxKeys)}</Field>
                <Field label="Members">{formatNumber(a.members)}</Field>
                <Field label="Requests today">{formatNumber(a.requestsToday)}</Field>
                <Field label="Created">
                  {formatDateTime(a.createdAt)}
                  <Hint size="xs">by {a.createdBy}</Hint>
                </Field>
              </SimpleGrid>
              <Group mt="md">
                <AccountPlanSelect account={a} />
              </Group>
            </Paper>
            <Paper withBorder p="md" mb="lg">
              <AccountLimitsEditor key={`${a.perMinute}/${a.perDay}/${a.perMonth}`} account={a} />
            </Paper>
            <QueryState query={quota} errorTitle="Could not read the monthly quota" skeletonRows={1}>
              {(q) => <MonthQuotaProgress quota={q} whose="the account's" />}
            </QueryState>
            <Paper withBorder p="md" mb="lg">
              <AccountAlertsEditor key={a.alertThresholds.join(",")} account={a} />
            </Paper>
            <SectionTitle>Members</SectionTitle>
            <MembersTable members={a.memberList} manage={{ scope: "admin", accountId: a.id }} />
            <SectionTitle mt="xl">Open invitations</SectionTitle>
            <InvitationsTable invitations={a.invitations} resend={{ accountId: a.id }} />
            <SectionTitle mt="xl">API keys</SectionTitle>
            <AccountKeys keys={a.apiKeys} />
            <SectionTitle mt="xl">Usage</SectionTitle>
            <AccountUsage account={a} />
            <SectionTitle mt="xl">Usage for billing</SectionTitle>
            <BillingExport accountId={a.id} />
            <SectionTitle mt="xl">Request log</SectionTitle>
            <RequestLog accountId={a.id} keys={a.apiKeys} />
            {inviting ? <InviteDialog accountId={a.id} onClose={invite.close} /> : null}
          </>
        )}
      </QueryState>
    </>
  );
}

function AccountKeys({ keys }: { keys: AccountDetail["apiKeys"] }) {
  if (keys.length === 0)
    return <Hint>No keys yet: the account&apos;s members create them in the developer portal.</Hint>;
  return (
    <DataTable
      label="Keys of this account table"
      rows={keys}
      rowKey={(k) => k.id}
      minWidth={720}
      columns={[
        {
          key: "name",
          header: "Name",
          title: true,
          cell: (k) => (
            <RouteLink href={`/admin/keys/${k.id}`} fw={500}>
              {k.name}
            </RouteLink>
          ),
        },
        { key: "prefix", header: "Prefix", cell: (k) => <Code>{k.prefix}…</Code> },
        {
          key: "state",
          header: "State",
          cell: (k) => <StateBadge color={STATE_COLORS[k.state]}>{k.state}</StateBadge>,
        },
        { key: "created", header: "Created", cell: (k) => formatDateTime(k.createdAt) },
        {
          key: "used",
          header: "Last used",
          cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"),
        },
      ]}
    />
  );
}

/** The usage as the account's members see it on the portal's usage page (`accounts.usage`). */
function AccountUsage({ account }: { account: Pick<AccountDetail, "id" | "plan" | "limits"> }) {
  const trpc = useTRPC();
  const [days, setDays] = useState<UsageDays>(30);
  const usage = useQuery({
    ...trpc.accounts.usage.queryOptions({ accountId: account.id, days }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  return (
    <UsageView
      query={usage}
      days={days}
      onDays={setDays}
      fileName={`account-${account.id}-usage`}
      limits={{ plan: account.plan, ...account.limits }}
      scope="This account"
      keyHref={(id) => `/admin/keys/${id}`}
    />
  );
}
