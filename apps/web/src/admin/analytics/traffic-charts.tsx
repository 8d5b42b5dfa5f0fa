"use client";
/**
 * Request analytics charts (docs/contract.md section 4, "Usage and analytics"): the last 24 hours by hour and
 * the last 30 days by day, stacked by outcome, latency p50/p95 per hour, and requests by operation and outcome.
 * Each chart has a text summary for screen readers and the numbers as a table below. The data is the core
 * usage service's `traffic` figures, the same numbers every other screen shows.
 */
import { BarChart, LineChart } from "@mantine/charts";
import { Accordion, Paper, SimpleGrid, Table, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { TableScroll } from "../components/table-scroll";
import { formatNumber } from "../format";

export type Traffic = RouterOutputs["apiKeys"]["traffic"];

/** Outcomes in display order, with their labels and colours. */
export const OUTCOME_SERIES = [
  { name: "2xx", label: "2xx success", color: "teal.7" },
  { name: "4xx", label: "4xx client error", color: "yellow.7" },
  { name: "rate_limited", label: "429 rate limited", color: "orange.7" },
  { name: "key_banned", label: "429 key banned", color: "red.8" },
  { name: "5xx", label: "5xx server error", color: "grape.7" },
] as const;

const OPERATION_LABELS: Record<string, string> = {
  listPets: "listPets",
  createPet: "createPet",
  getPet: "getPet (deprecated)",
  updatePet: "updatePet",
  listCategories: "listCategories",
  getMe: "getMe",
  createOrder: "createOrder",
  listOrders: "listOrders",
  getOrder: "getOrder",
  completeOrder: "completeOrder",
  cancelOrder: "cancelOrder",
  getInventory: "getInventory",
  unauthenticated: "Without a valid key",
  other: "No operation (404/405)",
};

const hourLabel = (iso: string) =>
  new Date(iso).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  });
const ms = (v: number | null) => (v === null ? "—" : `${v} ms`);

function ChartCard({ title, summary, children }: { title: string; summary: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Title order={3} size="h5">
        {title}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {summary}
      </Text>
      <div role="img" aria-label={`${title}. ${summary} The numbers are in the table below.`}>
        {children}
      </div>
    </Paper>
  );
}

/** Charts of one key's traffic, or the whole API's (`scope` names it in titles). */
export function TrafficCharts({ traffic, scope }: { traffic: Traffic; scope: string }) {
  const hourly = traffic.hourly.map((p) => ({ ...p, label: hourLabel(p.start) }));
  const daily = traffic.daily.map((p) => ({ ...p, label: dayLabel(p.start) }));
  const total24h = traffic.hourly.reduce((n, p) => n + p.total, 0);
  const totalDays = traffic.daily.reduce((n, p) => n + p.total, 0);
  const operations = traffic.byOperation.filter((o) => o.total > 0);
  const series = OUTCOME_SERIES.map((s) => ({ ...s }));
  return (
    <>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <ChartCard
          title={`${scope}: requests, last 24 hours (UTC)`}
          summary={`${formatNumber(total24h)} requests in the last 24 hours, by hour and outcome.`}
        >
          <BarChart
            h={200}
            data={hourly}
            dataKey="label"
            type="stacked"
            series={series}
            tickLine="y"
            gridAxis="x"
            xAxisProps={{ interval: 5 }}
            yAxisProps={{ allowDecimals: false, width: 48 }}
            valueFormatter={(v) => formatNumber(v)}
            withLegend
            barChartProps={{ accessibilityLayer: false }}
          />
        </ChartCard>
        <ChartCard
          title={`${scope}: latency, last 24 hours`}
          summary={`p50 ${ms(traffic.latency.p50)}, p95 ${ms(traffic.latency.p95)} over the last 24 hours.`}
        >
          <LineChart
            h={200}
            data={hourly}
            dataKey="label"
            series={[
              { name: "p50", label: "p50 (ms)", color: "teal.7" },
              { name: "p95", label: "p95 (ms)", color: "orange.7" },
            ]}
            connectNulls={false}
            tickLine="y"
            gridAxis="x"
            xAxisProps={{ interval: 5 }}
            yAxisProps={{ width: 48 }}
            unit=" ms"
            withLegend
            lineChartProps={{ accessibilityLayer: false }}
          />
        </ChartCard>
        <ChartCard
          title={`${scope}: requests, last ${traffic.daily.length} days (UTC)`}
          summary={`${formatNumber(totalDays)} requests in the last ${traffic.daily.length} days, by day and outcome.`}
        >
          <BarChart
            h={200}
            data={daily}
            dataKey="label"
            type="stacked"
            series={series}
            tickLine="y"
            gridAxis="x"
            xAxisProps={{ interval: Math.max(0, Math.round(daily.length / 5) - 1) }}
            yAxisProps={{ allowDecimals: false, width: 48 }}
            valueFormatter={(v) => formatNumber(v)}
            barChartProps={{ accessibilityLayer: false }}
          />
        </ChartCard>
        <ChartCard
          title={`${scope}: by operation and outcome, last ${traffic.daily.length} days`}
          summary={
            operations.length
              ? operations.map((o) => `${OPERATION_LABELS[o.operation]}: ${formatNumber(o.total)}`).join(", ")
              : "No requests yet."
          }
        >
          <BarChart
            h={200}
            data={operations.map((o) => ({ ...o, label: OPERATION_LABELS[o.operation] }))}
            dataKey="label"
            type="stacked"
            orientation="vertical"
            series={series}
            gridAxis="y"
            yAxisProps={{ width: 150 }}
            xAxisProps={{ allowDecimals: false }}
            valueFormatter={(v) => formatNumber(v)}
            barChartProps={{ accessibilityLayer: false }}
          />
        </ChartCard>
      </SimpleGrid>
      <Accordion mt="md" variant="contained">
        <Accordion.Item value="table">
          <Accordion.Control>Show the traffic numbers as tables</Accordion.Control>
          <Accordion.Panel>
            <NumbersTable
              label="Requests by operation and outcome"
              first="Operation"
              rows={traffic.byOperation.map((o) => ({
                ...o,
                key: o.operation,
                name: OPERATION_LABELS[o.operation] ?? o.operation,
              }))}
            />
            <NumbersTable
              label="Requests by hour (UTC)"
              first="Hour (UTC)"
              latency
              rows={[...traffic.hourly]
                .reverse()
                .map((p) => ({ ...p, key: p.start, name: hourLabel(p.start) }))}
            />
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
    </>
  );
}

type Row = Record<(typeof OUTCOME_SERIES)[number]["name"], number> & {
  key: string;
  name: string;
  total: number;
  p50?: number | null;
  p95?: number | null;
};

function NumbersTable({
  label,
  first,
  rows,
  latency,
}: {
  label: string;
  first: string;
  rows: Row[];
  latency?: boolean;
}) {
  return (
    <TableScroll label={label} minWidth={640}>
      <Table striped mb="md">
        <Table.Caption>{label}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{first}</Table.Th>
            <Table.Th ta="right">Total</Table.Th>
            {OUTCOME_SERIES.map((s) => (
              <Table.Th key={s.name} ta="right">
                {s.label}
              </Table.Th>
            ))}
            {latency ? (
              <>
                <Table.Th ta="right">p50</Table.Th>
                <Table.Th ta="right">p95</Table.Th>
              </>
            ) : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.key}>
              <Table.Td>{r.name}</Table.Td>
              <Table.Td ta="right">{formatNumber(r.total)}</Table.Td>
              {OUTCOME_SERIES.map((s) => (
                <Table.Td key={s.name} ta="right">
                  {formatNumber(r[s.name])}
                </Table.Td>
              ))}
              {latency ? (
                <>
                  <Table.Td ta="right">{ms(r.p50 ?? null)}</Table.Td>
                  <Table.Td ta="right">{ms(r.p95 ?? null)}</Table.Td>
                </>
              ) : null}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  );
}
