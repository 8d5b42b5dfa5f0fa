"use client";
/**
 * Audit log (admins): every change made in the dashboard or the CLI, newest first, filterable by actor and
 * entity, with the before/after of each change in a dialog. Read-only.
 */
import {
  Badge,
  Button,
  Code,
  Group,
  Modal,
  Pagination,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import type { AuditEntityType } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { TableScroll } from "../components/table-scroll";
import { formatDateTime, formatNumber } from "../format";
import { useTRPC } from "../trpc";

const ENTITY_OPTIONS = [
  { value: "", label: "All entities" },
  { value: "pet", label: "Animals" },
  { value: "category", label: "Categories" },
  { value: "apiKey", label: "API keys" },
  { value: "plan", label: "Plans" },
  { value: "user", label: "Users" },
];
const PAGE_SIZE = 25;

interface Entry {
  id: number;
  at: string;
  actor: string;
  action: string;
  entityType: string;
  entityId: string;
  before?: unknown;
  after?: unknown;
}

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

export function AuditPage() {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const [actor, setActor] = useState<string | null>(null);
  const [entityType, setEntityType] = useState("");
  const [entityId, setEntityId] = useState("");
  const [debouncedId] = useDebouncedValue(entityId.trim(), 300);
  const [viewing, setViewing] = useState<Entry | null>(null);

  const input = {
    page,
    pageSize: PAGE_SIZE,
    ...(actor ? { actor } : {}),
    ...(entityType ? { entityType: entityType as AuditEntityType } : {}),
    ...(debouncedId ? { entityId: debouncedId } : {}),
  };
  const log = useQuery({ ...trpc.audit.list.queryOptions(input), placeholderData: keepPreviousData });
  const actors = useQuery(trpc.audit.actors.queryOptions());
  const filter = (apply: () => void) => {
    apply();
    setPage(1);
  };
  const filtered = Boolean(actor || entityType || debouncedId);

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made in this dashboard or with the petstore command. Entries are never changed or deleted."
      />
      <Group gap="sm" mb="md" align="flex-end">
        <Select
          label="Who"
          placeholder="Anyone"
          data={actors.data ?? []}
          value={actor}
          onChange={(v) => filter(() => setActor(v))}
          searchable
          clearable
          w={{ base: "100%", xs: 260 }}
          nothingFoundMessage="Nobody by that name"
        />
        <Select
          label="Entity"
          data={ENTITY_OPTIONS}
          value={entityType}
          onChange={(v) => filter(() => setEntityType(v ?? ""))}
          allowDeselect={false}
          w={{ base: "47%", xs: 170 }}
        />
        <TextInput
          label="Entity id"
          placeholder="e.g. 42"
          value={entityId}
          onChange={(e) => filter(() => setEntityId(e.currentTarget.value))}
          w={{ base: "47%", xs: 200 }}
        />
      </Group>
      <QueryState
        query={log}
        errorTitle="Could not load the audit log"
        isEmpty={(d) => d.total === 0}
        empty={{
          title: filtered ? "No entries match" : "No changes yet",
          description: filtered ? "Try other filters." : "Changes appear here as they are made.",
        }}
      >
        {(data) => (
          <>
            <TableScroll label="Audit log table" minWidth={820}>
              <Table striped highlightOnHover verticalSpacing="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Who</Table.Th>
                    <Table.Th>What</Table.Th>
                    <Table.Th>Entity</Table.Th>
                    <Table.Th>
                      <VisuallyHidden>Details</VisuallyHidden>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.rows.map((e) => (
                    <Table.Tr key={e.id}>
                      <Table.Td style={{ whiteSpace: "nowrap" }}>{formatDateTime(e.at)}</Table.Td>
                      <Table.Td>{e.actor}</Table.Td>
                      <Table.Td>
                        <Badge variant="light" color="gray" tt="none">
                          {e.action}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        {e.entityType}{" "}
                        <Code>{e.entityId.length > 13 ? `${e.entityId.slice(0, 8)}…` : e.entityId}</Code>
                      </Table.Td>
                      <Table.Td ta="right">
                        <Button
                          size="xs"
                          variant="default"
                          onClick={() => setViewing(e)}
                          aria-label={`Changes of ${e.action} on ${e.entityType} ${e.entityId}`}
                        >
                          Changes
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroll>
            <Group justify="space-between" mt="md">
              <Text size="sm" c="dimmed">
                {formatNumber(data.total)} entries
              </Text>
              <Pagination
                total={Math.max(1, Math.ceil(data.total / PAGE_SIZE))}
                value={page}
                onChange={setPage}
                size="sm"
                siblings={0}
                getControlProps={(control) => ({ "aria-label": `${control} page` })}
                getItemProps={(p) => ({ "aria-label": `Page ${p}` })}
              />
            </Group>
          </>
        )}
      </QueryState>
      <Modal
        opened={viewing !== null}
        onClose={() => setViewing(null)}
        title={viewing ? `${viewing.action} · ${viewing.entityType} ${viewing.entityId}` : ""}
        size="xl"
        centered
      >
        {viewing ? (
          <Stack>
            <Text size="sm">
              By <strong>{viewing.actor}</strong> on {formatDateTime(viewing.at)}
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
