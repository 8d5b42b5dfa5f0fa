"use client";
/** API keys (admins): list with state and today's requests, issue (secret shown once), and per-key actions. */
import {
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  SegmentedControl,
  Table,
  Text,
  VisuallyHidden,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { TableScroll } from "../components/table-scroll";
import { formatDateTime, formatNumber, planLabel } from "../format";
import { useTRPC } from "../trpc";
import { IssueKeyModal } from "./issue-key-modal";
import { KeyActions } from "./key-actions";
import { STATE_COLORS } from "./key-meta";

export function KeysPage() {
  const trpc = useTRPC();
  const [issueOpen, issue] = useDisclosure(false);
  const [show, setShow] = useState<"usable" | "all">("all");
  const keys = useQuery({ ...trpc.apiKeys.list.queryOptions(), refetchInterval: 30_000 });

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let server-to-server clients call the public API."
        actions={<Button onClick={issue.open}>Issue key</Button>}
      />
      <SegmentedControl
        mb="md"
        aria-label="Which keys to show"
        value={show}
        onChange={(v) => setShow(v as "usable" | "all")}
        data={[
          { value: "all", label: "All keys" },
          { value: "usable", label: "Working keys" },
        ]}
      />
      <QueryState
        query={keys}
        errorTitle="Could not load the API keys"
        isEmpty={(d) =>
          d.filter((k) => show === "all" || (k.state !== "revoked" && k.state !== "expired")).length === 0
        }
        empty={{
          title: "No API keys",
          description: "Issue a key to let a client call the API.",
          action: <Button onClick={issue.open}>Issue key</Button>,
        }}
      >
        {(data) => (
          <TableScroll label="API keys table" minWidth={980}>
            <Table striped highlightOnHover verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Prefix</Table.Th>
                  <Table.Th>Plan</Table.Th>
                  <Table.Th>Environment</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Last used</Table.Th>
                  <Table.Th ta="right">Requests today</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data
                  .filter((k) => show === "all" || (k.state !== "revoked" && k.state !== "expired"))
                  .map((k) => (
                    <Table.Tr key={k.id}>
                      <Table.Td>
                        <Anchor component={Link} href={`/admin/keys/${k.id}`} fw={500}>
                          {k.name}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Code>{k.prefix}…</Code>
                      </Table.Td>
                      <Table.Td>{planLabel(k.plan)}</Table.Td>
                      <Table.Td>{k.environment}</Table.Td>
                      <Table.Td miw={104}>
                        <Badge variant="light" color={STATE_COLORS[k.state]} style={{ overflow: "visible" }}>
                          {k.state}
                        </Badge>
                        {k.state === "expiring" && k.expiresAt ? (
                          <Text size="xs" c="dimmed">
                            until {formatDateTime(k.expiresAt)}
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td miw={120}>{formatDateTime(k.createdAt)}</Table.Td>
                      <Table.Td>{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"}</Table.Td>
                      <Table.Td ta="right">{formatNumber(k.requestsToday)}</Table.Td>
                      <Table.Td>
                        <Group justify="flex-end">
                          <KeyActions apiKey={k} />
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
              </Table.Tbody>
            </Table>
          </TableScroll>
        )}
      </QueryState>
      <IssueKeyModal opened={issueOpen} onClose={issue.close} />
    </>
  );
}
