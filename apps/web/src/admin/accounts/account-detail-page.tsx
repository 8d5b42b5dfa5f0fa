"use client";
/**
 * One consumer account (admins): its plan, own limits and state, its figures, members and open invitations, its
 * keys (each linking its page), and its usage and request log as its members see them.
 */
import { Alert, Anchor, Badge, Button, Code, Group, Paper, SimpleGrid, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { InviteDialog } from "@/ui/accounts/invite-dialog";
import { InvitationsTable, MembersTable } from "@/ui/accounts/people";
import { DataTable } from "@/ui/components/data-table";
import { Field, NotFoundNotice, PageHeader } from "@/ui/components/page";
import { QueryState } from "@/ui/components/query-state";
import { formatDateTime, formatNumber, planLabel } from "@/ui/format";
import { STATE_COLORS } from "@/ui/keys/key-meta";
import { hasCode, useTRPC } from "@/ui/trpc";
import { RequestLog } from "@/ui/usage/request-log";
import { type UsageDays, UsageToolbar, UsageView } from "@/ui/usage/usage-view";
import { ACCOUNT_STATE_COLORS, ACCOUNT_STATE_LABELS, type AccountDetail, keysOfCap } from "./account-meta";
import { AccountLimitsEditor, AccountPlanSelect, SuspendButton } from "./account-settings";

export function AccountDetailPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const account = useQuery(trpc.accounts.get.queryOptions({ id }));
  const [inviting, invite] = useDisclosure(false);

  if (hasCode(account.error, "NOT_FOUND")) return <NotFoundNotice />;
  return (
    <>
      <Group justify="space-between">
        <Anchor component={Link} href="/admin/accounts" size="sm">
          ← All accounts
        </Anchor>
        <Anchor component={Link} href={`/admin/audit?entity=account&id=${id}`} size="sm">
          Audit log of this account →
        </Anchor>
      </Group>
      <QueryState query={account} errorTitle="Could not load this account" skeletonRows={4}>
        {(a) => (
          <>
            <PageHeader
              title={
                <Group gap="sm" component="span">
                  {a.name}
                  <Badge variant="light" color={ACCOUNT_STATE_COLORS[a.state]} size="lg">
                    {ACCOUNT_STATE_LABELS[a.state]}
                  </Badge>
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
                  <Text size="xs" c="dimmed">
                    by {a.createdBy}
                  </Text>
                </Field>
              </SimpleGrid>
              <Group mt="md">
                <AccountPlanSelect account={a} />
              </Group>
            </Paper>
            <Paper withBorder p="md" mb="lg">
              <AccountLimitsEditor key={`${a.perMinute}/${a.perDay}`} account={a} />
            </Paper>
            <Title order={2} size="h3" mb="sm">
              Members
            </Title>
            <MembersTable members={a.memberList} manage={{ scope: "admin", accountId: a.id }} />
            <Title order={2} size="h3" mt="xl" mb="sm">
              Open invitations
            </Title>
            <InvitationsTable invitations={a.invitations} />
            <Title order={2} size="h3" mt="xl" mb="sm">
              API keys
            </Title>
            <AccountKeys keys={a.apiKeys} />
            <Title order={2} size="h3" mt="xl" mb="sm">
              Usage
            </Title>
            <AccountUsage account={a} />
            <Title order={2} size="h3" mt="xl" mb="sm">
              Request log
            </Title>
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
    return (
      <Text size="sm" c="dimmed">
        No keys yet: the account&apos;s members create them in the developer portal.
      </Text>
    );
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
            <Anchor component={Link} href={`/admin/keys/${k.id}`} fw={500}>
              {k.name}
            </Anchor>
          ),
        },
        { key: "prefix", header: "Prefix", cell: (k) => <Code>{k.prefix}…</Code> },
        {
          key: "state",
          header: "State",
          cell: (k) => (
            <Badge variant="light" color={STATE_COLORS[k.state]} style={{ overflow: "visible" }}>
              {k.state}
            </Badge>
          ),
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
    <>
      <UsageToolbar
        usage={usage.data}
        days={days}
        onDays={setDays}
        fileName={`account-${account.id}-usage`}
      />
      <QueryState query={usage} errorTitle="Could not load the usage" skeletonRows={6}>
        {(u) => (
          <UsageView
            usage={u}
            limits={{ plan: account.plan, ...account.limits }}
            scope="This account"
            keyHref={(id) => `/admin/keys/${id}`}
          />
        )}
      </QueryState>
    </>
  );
}
