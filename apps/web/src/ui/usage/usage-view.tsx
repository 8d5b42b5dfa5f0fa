"use client";
/**
 * An account's usage against the limits its keys share (docs/contract.md section 7, "Usage and the request log"),
 * on the portal's usage page and the admin's account page: limits, traffic, outcomes, requests per key, and CSV.
 */
import {
  Button,
  Code,
  Group,
  Paper,
  Progress,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import Papa from "papaparse";
import { useContext } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { DataTable } from "../components/data-table";
import { Field, Hint, RouteLink, StateBadge } from "../components/page";
import { QueryState, type QueryStateProps } from "../components/query-state";
import { formatNumber, planLabel } from "../format";
import { STATE_COLORS, STATE_LABELS } from "../keys/key-meta";
import { ChartHeadingLevel, OUTCOME_SERIES, type Traffic, TrafficCharts } from "./traffic-charts";

export type AccountUsage = RouterOutputs["portal"]["usage"];
type KeyUsage = AccountUsage["keys"][number];

/** The day ranges the charts offer. */
export const USAGE_DAYS = [7, 30, 90] as const;
export type UsageDays = (typeof USAGE_DAYS)[number];

export interface UsageLimits {
  plan: string;
  perMinute: number | null;
  perDay: number | null;
}

/**
 * The daily figures as CSV (RFC 4180 through papaparse: every field quoted, CRLF): per UTC day its requests, each
 * outcome and the latency percentiles.
 */
function dailyUsageCsv(daily: Traffic["daily"]): string {
  const fields = ["day (UTC)", "requests", ...OUTCOME_SERIES.map((s) => s.label), "p50 (ms)", "p95 (ms)"];
  const data = daily.map((d) => [
    d.start,
    d.total,
    ...OUTCOME_SERIES.map((s) => d[s.name]),
    d.p50 ?? "",
    d.p95 ?? "",
  ]);
  return Papa.unparse({ fields, data }, { quotes: true, newline: "\r\n" });
}

/** Has the browser save `text` as `filename`. */
function downloadText(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  Object.assign(document.createElement("a"), { href: url, download: filename }).click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The usage of `query` (for `days` days, which the range picker changes), and its daily figures' CSV download. */
export function UsageView({
  query,
  days,
  onDays,
  fileName,
  ...view
}: {
  query: QueryStateProps<AccountUsage>["query"];
  days: UsageDays;
  onDays(days: UsageDays): void;
  /** The CSV's name before `-30-days.csv`. */
  fileName: string;
  limits: UsageLimits;
  /** Names the account in chart titles ("Your account"). */
  scope: string;
  keyHref(id: string): string;
}) {
  const usage = query.data;
  return (
    <>
      <Group justify="space-between" align="flex-end" mb="md" gap="sm">
        <Stack gap={4}>
          <Text size="sm" fw={500} id="usage-days">
            Daily figures for
          </Text>
          <SegmentedControl
            aria-labelledby="usage-days"
            data={USAGE_DAYS.map((d) => ({ value: String(d), label: `${d} days` }))}
            value={String(days)}
            onChange={(v) => onDays(Number(v) as UsageDays)}
          />
        </Stack>
        <Button
          variant="default"
          disabled={usage?.traffic.daily.length !== days}
          onClick={() =>
            usage && downloadText(`${fileName}-${days}-days.csv`, dailyUsageCsv(usage.traffic.daily))
          }
        >
          Download CSV
        </Button>
      </Group>
      <QueryState query={query} errorTitle="Could not load the usage" skeletonRows={6}>
        {(u) => <Usage usage={u} {...view} />}
      </QueryState>
    </>
  );
}

function Usage({
  usage,
  limits,
  scope,
  keyHref,
}: {
  usage: AccountUsage;
  limits: UsageLimits;
  scope: string;
  keyHref(id: string): string;
}) {
  const order = useContext(ChartHeadingLevel);
  const today = usage.keys.reduce((n, k) => n + k.requestsToday, 0);
  const total = usage.traffic.byOutcome.reduce((n, o) => n + o.requests, 0);
  return (
    <Stack gap="lg">
      <Paper withBorder p="md" component="section" aria-label="Limits">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md">
          <Field label="Plan">{planLabel(limits.plan)}</Field>
          <Field label="Per minute (all keys together)">
            {limits.perMinute === null ? "No limit set" : formatNumber(limits.perMinute)}
          </Field>
          <Field label="Per UTC day (all keys together)">
            {limits.perDay === null ? "No limit set" : formatNumber(limits.perDay)}
          </Field>
          <Field label="Requests today">
            {formatNumber(today)}
            {limits.perDay ? ` of ${formatNumber(limits.perDay)}` : ""}
          </Field>
        </SimpleGrid>
        {limits.perDay ? (
          <Progress
            mt="md"
            value={Math.min(100, (today / limits.perDay) * 100)}
            color={today >= limits.perDay ? "red" : today >= limits.perDay * 0.8 ? "orange" : "teal"}
            aria-label={`Requests today: ${formatNumber(today)} of ${formatNumber(limits.perDay)} a day`}
          />
        ) : null}
      </Paper>
      <TrafficCharts traffic={usage.traffic} scope={scope} />
      <Paper withBorder p="md" component="section" aria-label="Requests by outcome">
        <Title order={order} size="h5" mb="sm">
          By outcome, last {usage.traffic.daily.length} days: {formatNumber(total)} requests
        </Title>
        <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="sm">
          {OUTCOME_SERIES.map((s) => (
            <Field key={s.name} label={s.label}>
              {formatNumber(usage.traffic.byOutcome.find((o) => o.outcome === s.name)?.requests ?? 0)}
            </Field>
          ))}
        </SimpleGrid>
      </Paper>
      <section aria-labelledby="usage-per-key">
        <Title order={order} size="h4" mb="sm" id="usage-per-key">
          Requests per key
        </Title>
        {usage.keys.length ? (
          <DataTable<KeyUsage>
            label="Requests per key table"
            rows={usage.keys}
            rowKey={(k) => k.id}
            minWidth={720}
            columns={[
              {
                key: "name",
                header: "Key",
                title: true,
                minWidth: 180,
                cell: (k) => (
                  <Stack gap={0}>
                    <RouteLink href={keyHref(k.id)} fw={500}>
                      {k.name}
                    </RouteLink>
                    <Code fz="xs" w="fit-content">
                      {k.prefix}…
                    </Code>
                  </Stack>
                ),
              },
              {
                key: "state",
                header: "State",
                cell: (k) => <StateBadge color={STATE_COLORS[k.state]}>{STATE_LABELS[k.state]}</StateBadge>,
              },
              { key: "today", header: "Today", align: "right", cell: (k) => formatNumber(k.requestsToday) },
              { key: "7d", header: "Last 7 days", align: "right", cell: (k) => formatNumber(k.requests7d) },
              {
                key: "30d",
                header: "Last 30 days",
                align: "right",
                cell: (k) => formatNumber(k.requests30d),
              },
            ]}
          />
        ) : (
          <Hint>The account has no keys yet.</Hint>
        )}
      </section>
    </Stack>
  );
}
