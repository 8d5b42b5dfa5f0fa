"use client";
/**
 * A key's chosen UTC day by hour (docs/contract.md section 4, "Usage and analytics"), the day picked from quick
 * choices or a calendar and kept in the URL (`?day=YYYY-MM-DD`, pushed): requests by outcome, the 429s split by
 * what refused them (the minute window, the day window, a ban, or a window not recorded), a summary and a table.
 */
import { Chip, Group, Paper, Text, Title } from "@mantine/core";
import "@mantine/dates/styles.css";
import { DatePickerInput } from "@mantine/dates";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { parseAsIsoDate, useQueryState } from "nuqs";
import type { RouterOutputs } from "@/server/trpc/router";
import { FiguresTable } from "@/ui/components/figures-table";
import { QueryState } from "@/ui/components/query-state";
import { formatNumber } from "@/ui/format";
import { useTRPC } from "@/ui/trpc";
import { Bars } from "@/ui/usage/traffic-charts";

/** Series of the chart and columns of the table, in display order: what reached the API, then each 429 cause. */
const SERIES = [
  { name: "2xx", label: "2xx success", color: "teal.7" },
  { name: "4xx", label: "4xx client error", color: "yellow.7" },
  { name: "5xx", label: "5xx server error", color: "grape.7" },
  { name: "minuteWindow", label: "429 minute window", color: "orange.5" },
  { name: "dayWindow", label: "429 day window", color: "orange.9" },
  { name: "key_banned", label: "429 ban", color: "red.8" },
  { name: "windowUnrecorded", label: "429 window not recorded", color: "gray.6" },
] as const;

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const hourLabel = (iso: string) => iso.slice(11, 16);
const dayName = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  });

/** Today, yesterday and the five days before, newest first (UTC days). */
function quickDays(today: string) {
  const t = Date.parse(`${today}T00:00:00Z`);
  return Array.from({ length: 7 }, (_, i) => {
    const day = isoDay(t - i * DAY_MS);
    return { value: day, label: i === 0 ? "Today" : i === 1 ? "Yesterday" : dayName(day) };
  });
}

/** `?day=` as the UTC day it names: nuqs parses it as a Date at 00:00 UTC. */
const dayParam = parseAsIsoDate.withOptions({ history: "push" });

export function DayByHour({ keyId }: { keyId: string }) {
  const trpc = useTRPC();
  const [chosen, setChosen] = useQueryState("day", dayParam);
  // Today by this browser's clock until the service answers with its own (`today` below).
  const browserToday = isoDay(Date.now());
  const day = chosen ? isoDay(chosen.getTime()) : browserToday;
  const query = useQuery({
    ...trpc.apiKeys.dayByHour.queryOptions({ id: keyId, day }),
    placeholderData: keepPreviousData,
  });
  const today = query.data?.today ?? browserToday;
  const choose = (value: string | null) =>
    setChosen(value && value !== today ? new Date(`${value}T00:00:00Z`) : null);
  return (
    <>
      <Group align="end" gap="md" mb="sm" wrap="wrap">
        <Chip.Group value={day} onChange={(v) => choose(typeof v === "string" ? v : null)}>
          <Group gap="xs" role="radiogroup" aria-label="Quick choice of day">
            {quickDays(today).map((d) => (
              <Chip key={d.value} value={d.value} size="sm">
                {d.label}
              </Chip>
            ))}
          </Group>
        </Chip.Group>
        <DatePickerInput
          label="Day (UTC)"
          value={day}
          onChange={choose}
          minDate={query.data?.earliest}
          maxDate={today}
          valueFormat="D MMM YYYY"
          w={160}
          size="sm"
        />
      </Group>
      <QueryState query={query} errorTitle="Could not load this day" skeletonRows={4}>
        {(d) => <DayView day={d} />}
      </QueryState>
    </>
  );
}

type Day = RouterOutputs["apiKeys"]["dayByHour"];

function DayView({ day }: { day: Day }) {
  const sum = (name: (typeof SERIES)[number]["name"] | "total") => day.hours.reduce((n, h) => n + h[name], 0);
  const refused = sum("minuteWindow") + sum("dayWindow") + sum("key_banned") + sum("windowUnrecorded");
  const causes = SERIES.slice(3)
    .map((s) => ({ label: s.label.replace("429 ", ""), n: sum(s.name) }))
    .filter((c) => c.n > 0);
  const summary =
    `${formatNumber(sum("total"))} requests on ${dayName(day.day)} (${day.day}, UTC); ` +
    (refused
      ? `${formatNumber(refused)} refused with 429: ${causes.map((c) => `${formatNumber(c.n)} by ${c.label}`).join(", ")}.`
      : "none refused with 429.");
  const data = day.hours.map((h) => ({ ...h, label: hourLabel(h.start) }));
  return (
    <Paper withBorder p="md" component="section" aria-label={`Requests by hour on ${day.day}`}>
      <Title order={3} size="h5">
        Requests by hour, {day.day} (UTC)
      </Title>
      <Text size="sm" mb="sm" data-testid="day-summary">
        {summary}
      </Text>
      <div role="img" aria-label={`${summary} The numbers are in the table below.`}>
        <Bars
          h={220}
          data={data}
          type="stacked"
          series={SERIES.map((s) => ({ ...s }))}
          xAxisProps={{ interval: 2 }}
          withLegend
        />
      </div>
      <FiguresTable
        toggle="Show the hours as a table"
        minWidth={720}
        tables={[
          {
            label: `Requests by hour on ${day.day}`,
            first: "Hour (UTC)",
            columns: [
              { key: "total", label: "Total" },
              ...SERIES.map((s) => ({ key: s.name, label: s.label })),
            ],
            rows: data.map((h) => ({ ...h, key: h.start, name: h.label })),
          },
        ]}
      />
    </Paper>
  );
}
