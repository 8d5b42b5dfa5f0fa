"use client";
/**
 * The audit log (admins): every change made in the dashboard or the CLI, newest first, filtered in the URL by
 * actor, action, entity and days; each entry's changes in a dialog; the filtered log as a streamed CSV. Read-only.
 */
import { Button, Code, Select, Stack, Text, TextInput } from "@mantine/core";
import { AUDIT_ACTIONS, AuditLogFilter } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { FilterBar, FilterSelect } from "@/admin/components/filters";
import type { RouterOutputs } from "@/server/trpc/router";
import { QueryTable } from "@/ui/components/data-table";
import { PageHeader, StateBadge } from "@/ui/components/page";
import { Dialog } from "@/ui/dialogs";
import { notifySuccess } from "@/ui/feedback";
import { formatDateTime } from "@/ui/format";
import { maxLengthOf } from "@/ui/forms/use-zod-form";
import { useTRPC } from "@/ui/trpc";
import { AuditChanges } from "./audit-changes";
import { AuditDays } from "./audit-days";
import { AUDIT_PAGE_SIZE, useAuditQuery } from "./use-audit-query";

type Entry = RouterOutputs["audit"]["list"]["rows"][number];

const ENTITY_OPTIONS = [
  { value: "", label: "All entities" },
  { value: "pet", label: "Animals" },
  { value: "category", label: "Categories" },
  { value: "apiKey", label: "API keys" },
  { value: "plan", label: "Plans" },
  { value: "user", label: "Users" },
  { value: "session", label: "Sign-ins" },
  { value: "webhookEndpoint", label: "Webhook endpoints" },
  { value: "account", label: "Accounts" },
  { value: "invitation", label: "Invitations" },
  { value: "order", label: "Orders" },
];

const shortId = (id: string) => (id.length > 13 ? `${id.slice(0, 8)}…` : id);

/** Downloads the filtered log as CSV (GET /api/audit/export), which the server streams for any range. */
function ExportButton({ filter }: { filter: ReturnType<typeof useAuditQuery>["filter"] }) {
  const download = () => {
    const query = new URLSearchParams(
      Object.entries(filter).filter((e): e is [string, string] => Boolean(e[1])),
    );
    const href = `/api/audit/export${query.toString() ? `?${query}` : ""}`;
    Object.assign(document.createElement("a"), { href, download: "" }).click();
    notifySuccess("Export started: your browser saves the CSV file as it arrives.");
  };
  return (
    <Button variant="default" onClick={download}>
      Export CSV
    </Button>
  );
}

/** The "What" filter: every action the log records, grouped by what it acts on. */
const ACTION_GROUPS = ENTITY_OPTIONS.filter((o) => o.value).map((o) => ({
  group: o.label,
  items: AUDIT_ACTIONS.filter((a) => a.startsWith(`${o.value}.`)),
}));

/** The "Who" options: people, then the service and operators, and the URL's actor when neither lists it. */
function actorOptions(actors: { actor: string; label: string }[], current: string | null) {
  const people = actors.filter((a) => a.actor.startsWith("user:"));
  const others = actors.filter((a) => !a.actor.startsWith("user:"));
  if (current && !actors.some((a) => a.actor === current)) others.push({ actor: current, label: current });
  const items = (list: typeof actors) => list.map((a) => ({ value: a.actor, label: a.label }));
  return [
    { group: "People", items: items(people) },
    { group: "Service and operators", items: items(others) },
  ].filter((g) => g.items.length > 0);
}

export function AuditPage() {
  const trpc = useTRPC();
  const query = useAuditQuery();
  const { view } = query;
  const [viewing, setViewing] = useState<Entry | null>(null);
  const log = useQuery({ ...trpc.audit.list.queryOptions(query.input), placeholderData: keepPreviousData });
  const actors = useQuery(trpc.audit.actors.queryOptions());
  // People by name and email (as the "Who" filter lists them); other actors as the log records them.
  const labels = new Map((actors.data ?? []).map((a) => [a.actor, a.label]));
  const who = (actor: string) => labels.get(actor) ?? actor;

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made in this dashboard or with the petstore command. Entries are never changed or deleted."
        actions={<ExportButton filter={query.filter} />}
      />
      <FilterBar align="flex-start">
        <Select
          label="Who"
          placeholder="Anyone"
          data={actorOptions(actors.data ?? [], view.actor)}
          value={view.actor}
          onChange={(v) => query.change({ actor: v })}
          searchable
          clearable
          w={{ base: "100%", xs: 260 }}
          nothingFoundMessage="Nobody by that name"
        />
        <Select
          label="What"
          placeholder="Any action"
          data={ACTION_GROUPS}
          value={view.action}
          onChange={(v) => query.change({ action: v as typeof view.action })}
          searchable
          clearable
          w={{ base: "100%", xs: 220 }}
          nothingFoundMessage="No such action"
        />
        <FilterSelect
          label="Entity"
          data={ENTITY_OPTIONS}
          value={view.entity}
          onChange={(entity) => query.change({ entity })}
          w={{ base: "47%", xs: 170 }}
        />
        <TextInput
          label="Entity id"
          placeholder="e.g. 42"
          value={view.id}
          onChange={(e) => query.change({ id: e.currentTarget.value })}
          maxLength={maxLengthOf(AuditLogFilter.shape.entityId)}
          w={{ base: "47%", xs: 200 }}
        />
        <AuditDays from={view.from} to={view.to} onChange={query.change} error={query.rangeError} />
      </FilterBar>
      <QueryTable<Entry>
        query={log}
        errorTitle="Could not load the audit log"
        empty={{
          title: query.filtered ? "No entries match" : "No changes yet",
          description: query.filtered ? "Try other filters." : "Changes appear here as they are made.",
        }}
        label="Audit log table"
        rowKey={(e) => e.id}
        minWidth={880}
        columns={[
          {
            key: "when",
            header: "When",
            cell: (e) => <span style={{ whiteSpace: "nowrap" }}>{formatDateTime(e.at)}</span>,
          },
          { key: "who", header: "Who", cell: (e) => who(e.actor) },
          {
            key: "what",
            header: "What",
            minWidth: 170,
            title: true,
            cell: (e) => (
              <StateBadge color="gray" tt="none">
                {e.action}
              </StateBadge>
            ),
          },
          {
            key: "entity",
            header: "Entity",
            cell: (e) => (
              <>
                {e.entityName ? (
                  <Text span fw={500}>
                    {e.entityName}{" "}
                  </Text>
                ) : null}
                <Text span size="xs" c="dimmed">
                  {e.entityType} <Code title={e.entityId}>{shortId(e.entityId)}</Code>
                </Text>
              </>
            ),
          },
        ]}
        actions={(e) => (
          <Button
            size="xs"
            variant="default"
            onClick={() => setViewing(e)}
            aria-label={`Changes of ${e.action} on ${e.entityType} ${e.entityName ?? e.entityId}`}
          >
            Changes
          </Button>
        )}
        pager={{ what: "Entries", page: query.input.page, pageSize: AUDIT_PAGE_SIZE, onPage: query.goTo }}
      />
      {viewing ? (
        <Dialog
          onClose={() => setViewing(null)}
          title={`${viewing.action} · ${viewing.entityName ?? `${viewing.entityType} ${viewing.entityId}`}`}
          size="xl"
        >
          <Stack>
            <Text size="sm">
              By <strong>{who(viewing.actor)}</strong> on {formatDateTime(viewing.at)} · {viewing.entityType}{" "}
              <Code>{viewing.entityId}</Code>
            </Text>
            <AuditChanges before={viewing.before} after={viewing.after} />
          </Stack>
        </Dialog>
      ) : null}
    </>
  );
}
