"use client";
/**
 * The member's account (docs/contract.md section 7): its plan and limits, live keys against the plan's cap, a banner
 * while suspended; its API keys; its members and open invitations, which owners manage here.
 */
import { Alert, Button, Code, Group, Paper, SimpleGrid, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { AlertThresholdsEditor } from "@/ui/accounts/alert-thresholds";
import { InviteDialog } from "@/ui/accounts/invite-dialog";
import { InvitationsTable, MembersTable } from "@/ui/accounts/people";
import { type Column, QueryTable } from "@/ui/components/data-table";
import { Field, Hint, PageHeader, RouteLink, SectionTitle, StateBadge } from "@/ui/components/page";
import { QueryState } from "@/ui/components/query-state";
import { useNotifiedMutation } from "@/ui/feedback";
import { formatDateTime, formatNumber, planLabel } from "@/ui/format";
import { KeyDialog } from "@/ui/keys/key-dialog";
import { ScopeBadges } from "@/ui/keys/key-fields";
import { STATE_COLORS, STATE_LABELS } from "@/ui/keys/key-meta";
import { useCurrentUser } from "@/ui/shell";
import { useTRPC } from "@/ui/trpc";
import { MonthQuotaProgress } from "@/ui/usage/month-quota";
import { KeyButtons } from "./key-buttons";
import type { PortalAccount, PortalKey } from "./portal-meta";

export function AccountPage() {
  const trpc = useTRPC();
  const account = useQuery(trpc.portal.account.queryOptions());
  const quota = useQuery(trpc.portal.monthQuota.queryOptions());
  return (
    <QueryState query={account} errorTitle="Could not load your account" skeletonRows={6}>
      {(a) => (
        <>
          <PageHeader title={a.name} description="Your account in the Pet Store developer portal." />
          {a.state === "suspended" ? (
            <Alert color="red" title="This account is suspended" role="alert" mb="lg">
              Since {formatDateTime(a.suspendedAt)} the API refuses every key of this account, and no keys can
              be created. Contact Pet Store support to resume it.
            </Alert>
          ) : null}
          <Paper withBorder p="md" mb="xl" component="section" aria-label="Account summary">
            <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="md">
              <Field label="Plan">{planLabel(a.plan)}</Field>
              <Field label="Requests per minute">{formatNumber(a.perMinute)}</Field>
              <Field label="Requests per day">{formatNumber(a.perDay)}</Field>
              <Field label="Live keys">
                {formatNumber(a.keys)} {a.maxKeys === null ? "(no limit)" : `of ${formatNumber(a.maxKeys)}`}
              </Field>
              <Field label="Requests today">{formatNumber(a.requestsToday)}</Field>
            </SimpleGrid>
          </Paper>
          <QueryState query={quota} errorTitle="Could not read the monthly quota" skeletonRows={1}>
            {(q) => <MonthQuotaProgress quota={q} whose="your account's" />}
          </QueryState>
          <Paper withBorder p="md" mb="xl">
            <PortalAlerts key={a.alertThresholds.join(",")} account={a} />
          </Paper>
          <KeysSection account={a} />
          <MembersSection account={a} />
        </>
      )}
    </QueryState>
  );
}

const KEY_COLUMNS: Column<PortalKey>[] = [
  {
    key: "name",
    header: "Name",
    title: true,
    minWidth: 150,
    cell: (k) => (
      <RouteLink href={`/portal/keys/${k.id}`} fw={500}>
        {k.name}
      </RouteLink>
    ),
  },
  { key: "prefix", header: "Prefix", cell: (k) => <Code>{k.prefix}…</Code> },
  { key: "scopes", header: "Scopes", cell: (k) => <ScopeBadges scopes={k.scopes} /> },
  {
    key: "state",
    header: "State",
    minWidth: 110,
    cell: (k) => (
      <>
        <StateBadge color={STATE_COLORS[k.state]}>{STATE_LABELS[k.state]}</StateBadge>
        {k.leakedAt ? <StateBadge color="red">Leaked</StateBadge> : null}
      </>
    ),
  },
  { key: "created", header: "Created", minWidth: 120, cell: (k) => formatDateTime(k.createdAt) },
  {
    key: "used",
    header: "Last used",
    minWidth: 120,
    cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"),
  },
  { key: "today", header: "Requests today", align: "right", cell: (k) => formatNumber(k.requestsToday) },
];

/** The keys, with roll and revoke on each; "Create key" while the account may hold another live key. */
function KeysSection({ account }: { account: PortalAccount }) {
  const trpc = useTRPC();
  const keys = useQuery({ ...trpc.portal.keys.list.queryOptions(), refetchInterval: 30_000 });
  const [creating, create] = useDisclosure(false);
  const suspended = account.state === "suspended";
  const blocked = suspended
    ? "A suspended account cannot create keys."
    : account.maxKeys !== null && account.keys >= account.maxKeys
      ? `Your plan allows ${account.maxKeys} live keys: revoke one to create another.`
      : null;
  return (
    <section aria-labelledby="keys-heading">
      <Group justify="space-between" align="flex-end" mb="sm">
        <SectionTitle id="keys-heading" mb={0}>
          API keys
        </SectionTitle>
        <Button onClick={create.open} disabled={blocked !== null}>
          Create key
        </Button>
      </Group>
      {blocked ? <Hint mb="sm">{blocked}</Hint> : null}
      <QueryTable<PortalKey>
        query={keys}
        errorTitle="Could not load the API keys"
        empty={{ title: "No API keys yet", description: "Create a key to call the Pet Store API." }}
        label="API keys table"
        rowKey={(k) => k.id}
        minWidth={1000}
        columns={KEY_COLUMNS}
        actions={(k) => <KeyButtons apiKey={k} suspended={suspended} />}
      />
      {creating ? <KeyDialog scope="portal" onClose={create.close} /> : null}
    </section>
  );
}

/** The account's usage alert thresholds: its owners change them, its developers see them. */
function PortalAlerts({ account }: { account: PortalAccount }) {
  const trpc = useTRPC();
  const save = useNotifiedMutation(trpc.portal.setAlertThresholds.mutationOptions(), {
    invalidate: [trpc.portal.account.queryKey()],
    success: (a) =>
      a.alertThresholds.length
        ? `Usage alerts at ${a.alertThresholds.map((t) => `${t}%`).join(", ")}.`
        : "No usage alerts.",
    failure: "Could not save the thresholds",
  });
  return (
    <AlertThresholdsEditor
      thresholds={account.alertThresholds}
      saving={save.isPending}
      {...(account.role === "owner" ? { save: (thresholds: number[]) => save.mutate({ thresholds }) } : {})}
    />
  );
}

function MembersSection({ account }: { account: PortalAccount }) {
  const user = useCurrentUser();
  const [inviting, invite] = useDisclosure(false);
  // The role as the account's query reads it, which a change of one's own role refreshes.
  const owner = account.role === "owner";
  return (
    <section aria-labelledby="members-heading">
      <Group justify="space-between" align="flex-end" mt="xl" mb="sm">
        <SectionTitle id="members-heading" mb={0}>
          Members
        </SectionTitle>
        {owner ? <Button onClick={invite.open}>Invite member</Button> : null}
      </Group>
      <MembersTable
        members={account.memberList}
        manage={owner ? { scope: "portal" } : undefined}
        me={user.id}
      />
      <Title order={3} size="h4" mt="lg" mb="sm">
        Open invitations
      </Title>
      <InvitationsTable invitations={account.invitations} resend={owner ? {} : undefined} />
      {inviting ? <InviteDialog onClose={invite.close} /> : null}
    </section>
  );
}
