"use client";
/**
 * The keys that still call the deprecated getPet (docs/contract.md section 4 "API keys": admins chase them before its
 * sunset), server-paged, by most calls or latest call over 7 or 30 days (all in the URL), and as a streamed CSV;
 * below them, getPet's brownouts (brownouts.tsx).
 */
import { Anchor, Button, Group, Select, Stack, Text } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { parseAsInteger, parseAsNumberLiteral, parseAsStringLiteral, useQueryStates } from "nuqs";
import { sortHeaders } from "@/admin/components/sort";
import type { RouterOutputs } from "@/server/trpc/router";
import { QueryTable } from "@/ui/components/data-table";
import { PageHeader, RouteLink, StateBadge } from "@/ui/components/page";
import { PAGE_SIZES } from "@/ui/components/pager";
import { formatDateTime, formatNumber, planLabel } from "@/ui/format";
import { KeyPrefix } from "@/ui/keys/key-prefix";
import { useTRPC } from "@/ui/trpc";
import { Brownouts } from "./brownouts";

type Row = RouterOutputs["apiKeys"]["deprecatedCalls"]["rows"][number];

const STATE_COLORS: Record<Row["state"], string> = { working: "teal", revoked: "red", expired: "gray" };

const params = {
  days: parseAsNumberLiteral([7, 30] as const).withDefault(30),
  sort: parseAsStringLiteral(["calls", "lastCall"] as const).withDefault("calls"),
  page: parseAsInteger.withDefault(1),
  size: parseAsNumberLiteral(PAGE_SIZES).withDefault(20),
};

export function DeprecatedCallsPage() {
  const trpc = useTRPC();
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const input = { days: view.days, sort: view.sort, page: Math.max(1, view.page), pageSize: view.size };
  const callers = useQuery({
    ...trpc.apiKeys.deprecatedCalls.queryOptions(input),
    placeholderData: keepPreviousData,
    refetchInterval: 60_000,
  });
  const calls = `getPet calls (${view.days} days)`;
  const headers = sortHeaders(
    { calls, lastCall: "Last call (hour)" },
    { sort: view.sort, dir: "desc" },
    (sort) => setView({ sort, page: null }),
  );
  // The whole view as CSV, streamed by GET /api/keys/deprecated-calls/export.
  const download = () => {
    const query = new URLSearchParams({ days: String(view.days), sort: view.sort });
    Object.assign(document.createElement("a"), {
      href: `/api/keys/deprecated-calls/export?${query}`,
      download: "",
    }).click();
  };

  return (
    <>
      <PageHeader
        title="Keys calling the deprecated getPet"
        description="getPet (GET /v1/pets/{petId}) is deprecated and stops working at its sunset. These keys called it (calls that reached the API; 429s not counted); ask their contacts, the account's owners or whoever issued the key, to move to listPets."
        actions={
          <Button variant="default" onClick={download}>
            Export CSV
          </Button>
        }
      />
      <Group gap="sm" mb="md" align="flex-end">
        <Select
          label="Calls in the last"
          data={[
            { value: "7", label: "7 days" },
            { value: "30", label: "30 days" },
          ]}
          value={String(view.days)}
          onChange={(v) => setView({ days: v === "7" ? 7 : 30, page: null })}
          allowDeselect={false}
          w={{ base: "100%", xs: 160 }}
        />
      </Group>
      <QueryTable<Row>
        query={callers}
        errorTitle="Could not load the keys that call getPet"
        empty={{
          title: "No key called getPet",
          description: `No key called the deprecated getPet in the last ${view.days} days.`,
        }}
        label="Keys calling getPet"
        rowKey={(k) => k.id}
        minWidth={960}
        columns={[
          {
            key: "name",
            header: "Name",
            title: true,
            minWidth: 150,
            cell: (k) => (
              <RouteLink href={`/admin/keys/${k.id}`} fw={500}>
                {k.name}
              </RouteLink>
            ),
          },
          { key: "prefix", header: "Key", cell: (k) => <KeyPrefix prefix={k.prefix} /> },
          { key: "plan", header: "Plan", cell: (k) => planLabel(k.plan) },
          {
            key: "state",
            header: "State",
            cell: (k) => <StateBadge color={STATE_COLORS[k.state]}>{k.state}</StateBadge>,
          },
          {
            key: "contacts",
            header: "Contact",
            minWidth: 180,
            cell: (k) => (
              <Stack gap={0}>
                {k.contacts.map((c) =>
                  c.includes("@") ? (
                    <Anchor key={c} href={`mailto:${c}`} size="sm">
                      {c}
                    </Anchor>
                  ) : (
                    <Text key={c} size="sm">
                      {c}
                    </Text>
                  ),
                )}
              </Stack>
            ),
          },
          { key: "calls", header: calls, align: "right", cell: (k) => formatNumber(k.calls) },
          {
            key: "lastCall",
            header: "Last call (hour)",
            minWidth: 150,
            cell: (k) => formatDateTime(k.lastCallAt),
          },
        ]}
        headers={headers}
        pager={{
          what: "Keys",
          page: input.page,
          pageSize: input.pageSize,
          onPage: (page) => setView({ page }, { history: "push" }),
          onPageSize: (size) => setView({ size: size as typeof view.size, page: null }),
        }}
      />
      <Brownouts />
    </>
  );
}
