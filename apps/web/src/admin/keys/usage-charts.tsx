"use client";
/**
 * What a key's traffic charts do not show of its last 30 days: bans and deprecated getPet calls, as bar charts and
 * as a table (its requests and 429s by day are the traffic charts' own).
 */
import { Paper, SimpleGrid, Title } from "@mantine/core";
import type { RouterOutputs } from "@/server/trpc/router";
import { FiguresTable } from "@/ui/components/figures-table";
import { Hint } from "@/ui/components/page";
import { formatNumber } from "@/ui/format";
import { Bars } from "@/ui/usage/traffic-charts";

export type UsageDay = RouterOutputs["apiKeys"]["usage"][number];

const SERIES = [
  {
    key: "bans",
    title: "Bans",
    color: "red.7",
    note: "Times the key was banned for calling on while limited.",
  },
  {
    key: "deprecatedGet",
    title: "Deprecated getPet calls",
    color: "grape.7",
    note: "GET /v1/pets/{id}, sunset on 5 Dec 2030.",
  },
] as const;

const shortDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  });

export function UsageCharts({ days }: { days: UsageDay[] }) {
  const data = days.map((d) => ({ ...d, label: shortDay(d.day) }));
  return (
    <>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        {SERIES.map((s) => {
          const total = days.reduce((sum, d) => sum + d[s.key], 0);
          return (
            <Paper withBorder p="md" key={s.key} component="section" aria-label={`${s.title}, last 30 days`}>
              <Title order={3} size="h5">
                {s.title}: {formatNumber(total)}
              </Title>
              <Hint size="xs" mb="sm">
                {s.note}
              </Hint>
              <div
                role="img"
                aria-label={`${s.title} per day for the last 30 days, ${formatNumber(total)} in total. The numbers are in the table below.`}
              >
                <Bars
                  h={180}
                  data={data}
                  series={[{ name: s.key, label: s.title, color: s.color }]}
                  xAxisProps={{ interval: 6 }}
                />
              </div>
            </Paper>
          );
        })}
      </SimpleGrid>
      <FiguresTable
        toggle="Show the numbers as a table"
        minWidth={520}
        tables={[
          {
            label: "Daily usage table",
            first: "Day (UTC)",
            columns: SERIES.map((s) => ({ key: s.key, label: s.title })),
            rows: [...days].reverse().map((d) => ({ ...d, key: d.day, name: d.day })),
          },
        ]}
      />
    </>
  );
}
