"use client";
/**
 * Overview: animals by status and the orders' figures (everyone), and for admins the working keys by plan, requests today, the busiest keys
 * and the whole API's traffic, the usage service's figures that every other screen shows.
 */
import "@mantine/charts/styles.css";
import { DonutChart } from "@mantine/charts";
import { Code, ColorSwatch, Group, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { COUNT_CAP } from "@petstore/contracts";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { DataTable } from "@/ui/components/data-table";
import { Hint, PageHeader, RouteLink, SectionTitle } from "@/ui/components/page";
import { QueryState } from "@/ui/components/query-state";
import { formatEstimate, formatNumber, formatShortCount, planLabel, STATUS_LABELS } from "@/ui/format";
import { useCurrentUser } from "@/ui/shell";
import { useTRPC } from "@/ui/trpc";
import { Bars, reached, refused, type Traffic, TrafficCharts } from "@/ui/usage/traffic-charts";

const DONUT_COLORS = { available: "teal.7", pending: "yellow.6", sold: "gray.6", none: "blue.6" } as const;

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Paper withBorder p="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={28} fw={700}>
        {value}
      </Text>
      {hint ? <Hint size="xs">{hint}</Hint> : null}
    </Paper>
  );
}

function AnimalsCard() {
  const trpc = useTRPC();
  const animals = useQuery(trpc.overview.animals.queryOptions());
  return (
    <Card title="Animals by status">
      <QueryState
        query={animals}
        errorTitle="Could not load the animals"
        isEmpty={(d) => d.every((s) => s.count === 0)}
        empty={{ title: "No animals yet" }}
        skeletonRows={4}
      >
        {(data) => {
          const total = data.reduce((n, s) => n + s.count, 0);
          const exact = data.every((s) => s.exact);
          return (
            <Stack gap="xs">
              <Group align="center" justify="space-around" wrap="wrap">
                <div
                  role="img"
                  aria-label={data
                    .map((s) => `${STATUS_LABELS[s.status]}: ${formatEstimate(s.count, s.exact)}`)
                    .join(", ")}
                >
                  <DonutChart
                    data={data.map((s) => ({
                      name: STATUS_LABELS[s.status],
                      value: s.count,
                      color: DONUT_COLORS[s.status],
                    }))}
                    chartLabel={`${formatShortCount(total, exact)} animals`}
                    size={170}
                    thickness={26}
                    accessibilityLayer={false}
                  />
                </div>
                <Stack gap={6}>
                  {data.map((s) => (
                    <Group key={s.status} gap="xs" justify="space-between" miw={150}>
                      <Group gap={8} wrap="nowrap">
                        <ColorSwatch
                          color={`var(--mantine-color-${DONUT_COLORS[s.status].replace(".", "-")})`}
                          size={12}
                          withShadow={false}
                          aria-hidden="true"
                          data-legend-swatch={s.status}
                        />
                        <RouteLink href={`/admin/animals?status=${s.status}`} size="sm">
                          {STATUS_LABELS[s.status]}
                        </RouteLink>
                      </Group>
                      <Text size="sm" fw={600}>
                        {formatEstimate(s.count, s.exact)}
                      </Text>
                    </Group>
                  ))}
                </Stack>
              </Group>
              {exact ? null : (
                <Hint size="xs">
                  Counts above {formatNumber(COUNT_CAP)} are estimates from the database&apos;s statistics.
                </Hint>
              )}
            </Stack>
          );
        }}
      </QueryState>
    </Card>
  );
}

/** Open holds (placed orders, linking to them) and the orders placed today (UTC). */
function OrdersSection() {
  const trpc = useTRPC();
  const orders = useQuery({ ...trpc.overview.orders.queryOptions(), refetchInterval: 60_000 });
  return (
    <QueryState query={orders} errorTitle="Could not load the order figures" skeletonRows={2}>
      {(data) => (
        <SimpleGrid cols={{ base: 1, xs: 2 }} component="section" aria-label="Orders">
          <Paper withBorder p="md">
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              Open holds
            </Text>
            <Group justify="space-between" align="baseline" wrap="wrap">
              <Text fz={28} fw={700}>
                {formatNumber(data.placed)}
              </Text>
              <RouteLink href="/admin/orders?status=placed" size="sm">
                See the placed orders
              </RouteLink>
            </Group>
            <Hint size="xs">Animals held for API clients until completed, cancelled or lapsed</Hint>
          </Paper>
          <Stat
            label="Orders today (UTC)"
            value={formatNumber(data.today)}
            hint="Placed since midnight UTC"
          />
        </SimpleGrid>
      )}
    </QueryState>
  );
}

function KeysSection() {
  const trpc = useTRPC();
  const keys = useQuery({ ...trpc.overview.keys.queryOptions(), refetchInterval: 60_000 });
  return (
    <QueryState query={keys} errorTitle="Could not load the API key figures" skeletonRows={4}>
      {(data) => (
        <Stack>
          <SimpleGrid cols={{ base: 1, xs: 3 }}>
            <Stat
              label="Requests today (UTC)"
              value={formatNumber(data.requests.today)}
              hint={`${formatNumber(data.requests.yesterday)} yesterday`}
            />
            <Stat
              label="Working keys"
              value={formatNumber(data.keysByPlan.reduce((n, p) => n + p.count, 0))}
              hint="Neither revoked nor expired"
            />
            <Stat
              label="Busiest key today"
              value={data.topKeys[0] ? formatNumber(data.topKeys[0].requestsToday) : "—"}
              hint={data.topKeys[0]?.name ?? "No traffic yet"}
            />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Card title="Working keys by plan">
              <div
                role="img"
                aria-label={data.keysByPlan.map((p) => `${planLabel(p.plan)}: ${p.count}`).join(", ")}
              >
                <Bars
                  data={data.keysByPlan.map((p) => ({ label: planLabel(p.plan), keys: p.count }))}
                  series={[{ name: "keys", label: "Keys", color: "teal.7" }]}
                  yAxisProps={{ allowDecimals: false, width: 32 }}
                />
              </div>
              <Hint size="xs" mt="xs">
                {data.keysByPlan.map((p) => `${planLabel(p.plan)}: ${p.count}`).join(" · ")}
              </Hint>
            </Card>
            <Card title="Top keys by requests today">
              {data.topKeys.length === 0 ? (
                <Hint>No key has made requests today (UTC).</Hint>
              ) : (
                <DataTable
                  label="Top keys table"
                  rows={data.topKeys}
                  rowKey={(k) => k.id}
                  minWidth={320}
                  columns={[
                    {
                      key: "key",
                      header: "Key",
                      title: true,
                      cell: (k) => (
                        <>
                          <RouteLink href={`/admin/keys/${k.id}`} size="sm">
                            {k.name}
                          </RouteLink>{" "}
                          <Code>{k.prefix}…</Code>
                        </>
                      ),
                    },
                    { key: "plan", header: "Plan", cell: (k) => planLabel(k.plan) },
                    {
                      key: "today",
                      header: "Requests today",
                      align: "right",
                      cell: (k) => formatNumber(k.requestsToday),
                    },
                  ]}
                />
              )}
            </Card>
          </SimpleGrid>
        </Stack>
      )}
    </QueryState>
  );
}

/**
 * The deprecated getPet's calls that reached the API in the traffic's days (the deprecated-callers page's sum), its
 * 429s apart, linking to the keys that made them.
 */
function DeprecatedCalls({ traffic }: { traffic: Traffic }) {
  const getPet = traffic.byOperation.find((o) => o.operation === "getPet");
  const calls = getPet ? reached(getPet) : 0;
  return (
    <Paper withBorder p="md" component="section" aria-label="Deprecated getPet">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        Deprecated getPet calls, last {traffic.daily.length} days
      </Text>
      <Group justify="space-between" align="baseline" wrap="wrap">
        <Text fz={28} fw={700} data-figure="getPet-calls">
          {formatNumber(calls)}
        </Text>
        <RouteLink href="/admin/keys/deprecated-calls" size="sm">
          See the keys that call getPet
        </RouteLink>
      </Group>
      <Hint size="xs">
        Calls that reached the API (UTC days, today included); {formatNumber(getPet ? refused(getPet) : 0)}{" "}
        more were refused with 429.
      </Hint>
    </Paper>
  );
}

function TrafficSection() {
  const trpc = useTRPC();
  const traffic = useQuery({ ...trpc.overview.traffic.queryOptions(), refetchInterval: 60_000 });
  return (
    <Stack gap="sm">
      <SectionTitle mb={0}>API traffic</SectionTitle>
      <QueryState query={traffic} errorTitle="Could not load the API traffic" skeletonRows={4}>
        {(t) => (
          <>
            <DeprecatedCalls traffic={t} />
            <TrafficCharts traffic={t} scope="All keys" />
          </>
        )}
      </QueryState>
    </Stack>
  );
}

export function OverviewPage() {
  const user = useCurrentUser();
  return (
    <>
      <PageHeader title="Overview" description={`Signed in as ${user.name}.`} />
      <Stack>
        <AnimalsCard />
        <OrdersSection />
        {user.role === "admin" ? <KeysSection /> : null}
        {user.role === "admin" ? <TrafficSection /> : null}
      </Stack>
    </>
  );
}
