"use client";
/**
 * Audit log (admins): every change made in the dashboard or the CLI, newest first, filtered by actor,
 * entity and a range of days (all in the URL), each entry's entity named beside its id, the before/after
 * in a dialog, and the filtered log as a CSV download. Read-only.
 */
import {
  Badge,
  Button,
  Code,
  Group,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { AuditLogFilter } from "@petstore/contracts";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { DataTable } from "../components/data-table";
import { PageHeader } from "../components/page-header";
import { Pager } from "../components/pager";
import { QueryState } from "../components/query-state";
import { notifyError, notifySuccess } from "../feedback";
import { formatDateTime, formatNumber } from "../format";
import { useTRPC } from "../trpc";
import { maxLengthOf } from "../use-zod-form";
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
];

const shortId = (id: string) => (id.length > 13 ? `${id.slice(0, 8)}…` : id);

function Json({ label, value }: { label: string; value: unknown }) {
  return (
    <Stack gap={4}>
      <Title order={3} size="h6">
        {label}
      </Title>
      {value === null || value === undefined ? (
        <Text size="sm" c="dimmed">
          Nothing
        </Text>
      ) : (
        <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
          {JSON.stringify(value, null, 2)}
        </Code>
      )}
    </Stack>
  );
}

/** Downloads the filtered log as CSV (built on the server, so the file matches the filters exactly). */
function ExportButton({ filter }: { filter: ReturnType<typeof useAuditQuery>["filter"] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const file = await queryClient.fetchQuery({ ...trpc.audit.export.queryOptions(filter), staleTime: 0 });
      const url = URL.createObjectURL(new Blob([file.csv], { type: "text/csv;charset=utf-8" }));
      const link = Object.assign(document.createElement("a"), { href: url, download: file.filename });
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1_000);
      notifySuccess(
        file.rows < file.total
          ? `Exported the newest ${formatNumber(file.rows)} of ${formatNumber(file.total)} entries; narrow the filters for the rest.`
          : `Exported ${formatNumber(file.rows)} entr${file.rows === 1 ? "y" : "ies"}.`,
      );
    } catch (error) {
      notifyError("Could not export the audit log", error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="default" onClick={download} loading={busy}>
      Export CSV
    </Button>
  );
}

export function AuditPage() {
  const trpc = useTRPC();
  const query = useAuditQuery();
  const { view } = query;
  const [viewing, setViewing] = useState<Entry | null>(null);
  const log = useQuery({ ...trpc.audit.list.queryOptions(query.input), placeholderData: keepPreviousData });
  const actors = useQuery(trpc.audit.actors.queryOptions());

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made in this dashboard or with the petstore command. Entries are never changed or deleted."
        actions={<ExportButton filter={query.filter} />}
      />
      <Group gap="sm" mb="md" align="flex-start" wrap="wrap">
        <Select
          label="Who"
          placeholder="Anyone"
          data={actors.data ?? []}
          value={view.actor}
          onChange={(v) => query.change({ actor: v })}
          searchable
          clearable
          w={{ base: "100%", xs: 260 }}
          nothingFoundMessage="Nobody by that name"
        />
        <Select
          label="Entity"
          data={ENTITY_OPTIONS}
          value={view.entity ?? ""}
          onChange={(v) => query.change({ entity: (v || null) as typeof view.entity })}
          allowDeselect={false}
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
        <TextInput
          label="From day"
          type="date"
          value={view.from}
          onChange={(e) => query.change({ from: e.currentTarget.value })}
          w={{ base: "47%", xs: 170 }}
        />
        <TextInput
          label="To day (included)"
          type="date"
          value={view.to}
          onChange={(e) => query.change({ to: e.currentTarget.value })}
          error={query.rangeError}
          w={{ base: "47%", xs: 170 }}
        />
      </Group>
      <QueryState
        query={log}
        errorTitle="Could not load the audit log"
        isEmpty={(d) => d.total === 0}
        empty={{
          title: query.filtered ? "No entries match" : "No changes yet",
          description: query.filtered ? "Try other filters." : "Changes appear here as they are made.",
        }}
      >
        {(data) => (
          <>
            <DataTable<Entry>
              label="Audit log table"
              rows={data.rows}
              rowKey={(e) => e.id}
              minWidth={880}
              busy={log.isFetching}
              columns={[
                {
                  key: "when",
                  header: "When",
                  cell: (e) => <span style={{ whiteSpace: "nowrap" }}>{formatDateTime(e.at)}</span>,
                },
                { key: "who", header: "Who", cell: (e) => e.actor },
                {
                  key: "what",
                  header: "What",
                  minWidth: 170,
                  title: true,
                  cell: (e) => (
                    <Badge variant="light" color="gray" tt="none">
                      {e.action}
                    </Badge>
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
            />
            <Pager
              what="Entries"
              page={query.input.page}
              pageSize={AUDIT_PAGE_SIZE}
              total={data.total}
              shown={data.rows.length}
              onPage={query.goTo}
            />
          </>
        )}
      </QueryState>
      <Modal
        opened={viewing !== null}
        onClose={() => setViewing(null)}
        title={
          viewing
            ? `${viewing.action} · ${viewing.entityName ?? `${viewing.entityType} ${viewing.entityId}`}`
            : ""
        }
        size="xl"
        centered
      >
        {viewing ? (
          <Stack>
            <Text size="sm">
              By <strong>{viewing.actor}</strong> on {formatDateTime(viewing.at)} · {viewing.entityType}{" "}
              <Code>{viewing.entityId}</Code>
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Json label="Before" value={viewing.before} />
              <Json label="After" value={viewing.after} />
            </SimpleGrid>
          </Stack>
        ) : null}
      </Modal>
    </>
  );
}
