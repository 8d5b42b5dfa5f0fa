"use client";
/** The month's progress against a monthly quota (docs/contract.md section 3), for the portal and the admin pages. */
import { Group, Paper, Progress, Text, Title } from "@mantine/core";
import { formatDateTime, formatNumber } from "../format";

/** What the limiter says of the month (`RateLimiter.monthQuota`); null without a quota. */
export interface MonthQuotaView {
  limit: number;
  used: number;
  /** Unix ms of 00:00 UTC on the 1st of next month. */
  resetMs: number;
}

/** A bar of the month's requests against the quota; a line saying there is none when `quota` is null. */
export function MonthQuotaProgress({ quota, whose }: { quota: MonthQuotaView | null; whose: string }) {
  if (!quota)
    return (
      <Text size="sm" c="dimmed" mb="lg">
        No monthly quota: {whose} requests are limited per minute and per day only.
      </Text>
    );
  const share = quota.used / quota.limit;
  return (
    <Paper withBorder p="md" mb="lg" component="section" aria-label="Monthly quota">
      <Group justify="space-between" mb="xs">
        <Title order={3} size="h5">
          This month (UTC): {formatNumber(quota.used)} of {formatNumber(quota.limit)} requests
        </Title>
        <Text size="sm" c="dimmed">
          Starts over {formatDateTime(new Date(quota.resetMs).toISOString())}
        </Text>
      </Group>
      <Progress
        value={Math.min(100, share * 100)}
        color={share >= 1 ? "red" : share >= 0.8 ? "orange" : "teal"}
        aria-label={`Requests this month: ${formatNumber(quota.used)} of ${formatNumber(quota.limit)}`}
      />
    </Paper>
  );
}
