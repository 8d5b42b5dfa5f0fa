"use client";
/**
 * Traffic charts (docs/contract.md section 4, "Usage and analytics"): the last 24 hours by hour and the chosen days
 * by day, by outcome, latency p50/p95, and requests by operation; each with a summary and its figures as tables.
 */
import "@mantine/charts/styles.css";
import { BarChart, type BarChartProps, LineChart } from "@mantine/charts";
import { Paper, SimpleGrid, Title } from "@mantine/core";
import { createContext, type ReactNode, useContext } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { FiguresTable } from "../components/figures-table";
import { Hint } from "../components/page";
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
const ms = (v: number | null | undefined) => (v === null || v === undefined ? "—" : `${v} ms`);

/**
 * The level of the charts' headings: 3 under a page's h2 section (the default), 2 where the charts sit right under
 * the page's h1 (the portal's usage page), so headings go down one level at a time (axe `heading-order`).
 */
export const ChartHeadingLevel = createContext<2 | 3>(3);

function ChartCard({ title, summary, children }: { title: string; summary: string; children: ReactNode }) {
  const order = useContext(ChartHeadingLevel);
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Title order={order} size="h5">
        {title}
      </Title>
      <Hint size="xs" mb="sm">
        {summary}
      </Hint>
      <div role="img" aria-label={`${title}. ${summary} The numbers are in the table below.`}>
        {children}
      </div>
    </Paper>
  );
}

/**
 * A bar chart of counts by `label`, bars along x unless said; the chart's own accessibility layer is off, as its
 * card is one image with a summary and its figures are a table.
 */
export function Bars(props: Omit<BarChartProps, "dataKey">) {
  return (
    <BarChart
      h={200}
      dataKey="label"
      yAxisProps={{ allowDecimals: false, width: 48 }}
      valueFormatter={(v) => formatNumber(v)}
      barChartProps={{ accessibilityLayer: false }}
      {...props}
    />
  );
}

const OutcomeBars = (props: Omit<BarChartProps, "dataKey" | "series" | "type">) => (
  <Bars type="stacked" series={OUTCOME_SERIES.map((s) => ({ ...s }))} {...props} />
);

/** Outcome counts of a point, an operation or a day. */
type Counts = Pick<Traffic["daily"][number], "2xx" | "4xx" | "5xx" | "rate_limited" | "key_banned">;

/** Requests that reached the API (any status but 429): what "requests" and "calls" count on every screen. */
export const reached = (c: Counts) => c["2xx"] + c["4xx"] + c["5xx"];
/** Requests refused with 429 (a window or a ban), counted apart from the requests. */
export const refused = (c: Counts) => c.rate_limited + c.key_banned;

/** "N requests reached the API and M were refused with 429", of summed counts. */
function requestsSummary(points: Counts[]) {
  const n = points.reduce((sum, p) => sum + reached(p), 0);
  const r = points.reduce((sum, p) => sum + refused(p), 0);
  return `${formatNumber(n)} requests reached the API and ${formatNumber(r)} were refused with 429`;
}

const FIGURE_COLUMNS = [
  { key: "reached" as const, label: "Reached the API" },
  { key: "total" as const, label: "All, with 429s" },
  ...OUTCOME_SERIES.map((s) => ({ key: s.name, label: s.label })),
];

/** Charts of one key's traffic, or several keys' together (`scope` names them in titles). */
export function TrafficCharts({ traffic, scope }: { traffic: Traffic; scope: string }) {
  const hourly = traffic.hourly.map((p) => ({ ...p, label: hourLabel(p.start) }));
  const daily = traffic.daily.map((p) => ({ ...p, label: dayLabel(p.start) }));
  const operations = traffic.byOperation.filter((o) => o.total > 0);
  const days = traffic.daily.length;
  return (
    <>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <ChartCard
          title={`${scope}: requests, last 24 hours (UTC)`}
          summary={`${requestsSummary(traffic.hourly)} in the last 24 hours, by hour and outcome.`}
        >
          <OutcomeBars data={hourly} xAxisProps={{ interval: 5 }} withLegend />
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
          title={`${scope}: requests, last ${days} days (UTC)`}
          summary={`${requestsSummary(traffic.daily)} in the last ${days} days, by day and outcome.`}
        >
          <OutcomeBars
            data={daily}
            xAxisProps={{ interval: Math.max(0, Math.round(daily.length / 5) - 1) }}
          />
        </ChartCard>
        <ChartCard
          title={`${scope}: by operation and outcome, last ${days} days`}
          summary={
            operations.length
              ? `Reached the API (429s apart): ${operations
                  .map(
                    (o) =>
                      `${OPERATION_LABELS[o.operation]}: ${formatNumber(reached(o))}${refused(o) ? ` (+${formatNumber(refused(o))} refused)` : ""}`,
                  )
                  .join(", ")}`
              : "No requests yet."
          }
        >
          <OutcomeBars
            data={operations.map((o) => ({ ...o, label: OPERATION_LABELS[o.operation] }))}
            orientation="vertical"
            gridAxis="y"
            yAxisProps={{ width: 150 }}
            xAxisProps={{ allowDecimals: false }}
          />
        </ChartCard>
      </SimpleGrid>
      <FiguresTable
        toggle="Show the traffic numbers as tables"
        minWidth={640}
        tables={[
          {
            label: "Requests by operation and outcome",
            first: "Operation",
            columns: FIGURE_COLUMNS,
            rows: traffic.byOperation.map((o) => ({
              ...o,
              reached: reached(o),
              key: o.operation,
              name: OPERATION_LABELS[o.operation] ?? o.operation,
            })),
          },
          {
            label: "Requests by hour (UTC)",
            first: "Hour (UTC)",
            columns: [
              ...FIGURE_COLUMNS,
              { key: "p50" as const, label: "p50", format: ms },
              { key: "p95" as const, label: "p95", format: ms },
            ],
            rows: [...traffic.hourly]
              .reverse()
              .map((p) => ({ ...p, reached: reached(p), key: p.start, name: hourLabel(p.start) })),
          },
        ]}
      />
    </>
  );
}
