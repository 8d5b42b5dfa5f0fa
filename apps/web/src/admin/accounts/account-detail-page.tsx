"use client";
/**
 * One consumer account (admins): its plan (changed after confirming), its own limits, state with Suspend or
 * Resume, figures, members (their role changed or removed after confirming), open invitations ("Invite member" shows the link once), its keys linking their pages,
 * its usage and request log as its members see them, and a link to its audit entries.
 */
import { Alert, Anchor, Badge, Button, Group, Paper, SimpleGrid, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { RequestLog } from "@/portal/request-log";
import { Field } from "../components/field";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { formatDateTime, formatNumber, planLabel } from "../format";
import { NotFoundNotice } from "../shell";
import { hasCode, useTRPC } from "../trpc";
import { AccountKeysTable } from "./account-keys";
import { AccountLimitsEditor } from "./account-limits";
import { ACCOUNT_STATE_COLORS, ACCOUNT_STATE_LABELS, keysOfCap } from "./account-meta";
import { InvitationsTable, MembersTable } from "./account-people";
import { AccountPlanSelect } from "./account-plan";
import { AccountUsageSection } from "./account-usage";
import { InviteMemberModal } from "./invite-member-modal";
import { SuspendButton } from "./suspend-button";

export function AccountDetailPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const account = useQuery(trpc.accounts.get.queryOptions({ id }));
  const [inviteOpen, invite] = useDisclosure(false);

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
            <MembersTable accountId={a.id} members={a.memberList} />
            <Title order={2} size="h3" mt="xl" mb="sm">
              Open invitations
            </Title>
            <InvitationsTable invitations={a.invitations} />
            <Title order={2} size="h3" mt="xl" mb="sm">
              API keys
            </Title>
            <AccountKeysTable keys={a.apiKeys} />
            <Title order={2} size="h3" mt="xl" mb="sm">
              Usage
            </Title>
            <AccountUsageSection account={a} />
            <Title order={2} size="h3" mt="xl" mb="sm">
              Request log
            </Title>
            <RequestLog accountId={a.id} keys={a.apiKeys} />
            <InviteMemberModal accountId={a.id} opened={inviteOpen} onClose={invite.close} />
          </>
        )}
      </QueryState>
    </>
  );
}
