"use client";
/**
 * An account's usage alert thresholds (docs/contract.md section 7, "Usage alerts"): percentages of its day and
 * month windows, shown to every member and changed by its owners (portal) or an admin (account page).
 */
import { Button, Group, Stack, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { Hint } from "../components/page";

/** `"80, 100"` as `[80, 100]`; undefined when a part is no whole number. */
export function parseThresholds(text: string): number[] | undefined {
  const parts = text
    .split(/[\s,;%]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (!parts.every((p) => /^\d+$/.test(p))) return undefined;
  return parts.map(Number);
}

export function AlertThresholdsEditor({
  thresholds,
  save,
  saving,
  error,
}: {
  thresholds: number[];
  /** Saves the thresholds; absent: shown read-only (a developer). */
  save?: (thresholds: number[]) => void;
  saving?: boolean;
  error?: string;
}) {
  const [text, setText] = useState(thresholds.join(", "));
  const parsed = parseThresholds(text);
  return (
    <Stack gap="xs" component="section" aria-labelledby="alert-thresholds">
      <Title order={2} size="h4" id="alert-thresholds">
        Usage alerts
      </Title>
      <Hint>
        When the account&apos;s requests reach one of these percentages of its day or month limit, its owners
        get an email and its webhook endpoints subscribed to usage.threshold an event, once per window and
        threshold.
      </Hint>
      {save ? (
        <Group align="flex-end">
          <TextInput
            label="Thresholds (%)"
            description="Up to 5, from 1 to 100; empty: no alerts"
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            error={parsed === undefined ? "whole numbers, separated by commas" : error}
            w={260}
          />
          <Button
            variant="default"
            loading={saving}
            disabled={parsed === undefined || parsed.join(",") === thresholds.join(",")}
            onClick={() => parsed && save(parsed)}
          >
            Save thresholds
          </Button>
        </Group>
      ) : (
        <Hint>{thresholds.length ? `At ${thresholds.map((t) => `${t}%`).join(", ")}.` : "None."}</Hint>
      )}
    </Stack>
  );
}
