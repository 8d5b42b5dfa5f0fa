"use client";
/**
 * The billing CSV of a UTC month (docs/contract.md section 7, "Usage for billing"): a month picker and the download
 * of `GET /api/usage/export`, for the portal (the member's account) and the admin account page (`accountId`).
 */
import { Button, Group, Select } from "@mantine/core";
import { useState } from "react";
import { Hint } from "../components/page";
import { notifySuccess } from "../feedback";

/** The current UTC month and the 11 before it, newest first, as `YYYY-MM`. */
function recentMonths(now = new Date()): string[] {
  return Array.from({ length: 12 }, (_, i) =>
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1)).toISOString().slice(0, 7),
  );
}

export function BillingExport({ accountId }: { accountId?: string }) {
  const months = recentMonths();
  const [month, setMonth] = useState(months[1] ?? (months[0] as string));
  const download = () => {
    const query = new URLSearchParams({ month, ...(accountId ? { account: accountId } : {}) });
    Object.assign(document.createElement("a"), { href: `/api/usage/export?${query}`, download: "" }).click();
    notifySuccess(`Export of ${month} started: your browser saves the CSV file.`);
  };
  return (
    <section aria-label="Usage for billing">
      <Group align="flex-end">
        <Select
          label="Month (UTC)"
          data={months.map((m, i) => ({ value: m, label: i === 0 ? `${m} (so far)` : m }))}
          value={month}
          onChange={(v) => v && setMonth(v)}
          allowDeselect={false}
          w={180}
        />
        <Button variant="default" onClick={download}>
          Download billing CSV
        </Button>
      </Group>
      <Hint mt="xs">
        Requests per operation and outcome in the month. A month is final an hour after it ends; the current
        month grows until then.
      </Hint>
    </section>
  );
}
