"use client";
/** The audit log's range of days: the viewer's calendar days, both included, with presets for the usual ranges. */
import "@mantine/dates/styles.css";
import { DatePickerInput, type DatePickerPreset } from "@mantine/dates";

/** The viewer's calendar day `daysAgo` days before today, as `YYYY-MM-DD`. */
function localDay(daysAgo: number): string {
  const d = new Date();
  d.setDate(d.getDate() - daysAgo);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

function presets(): DatePickerPreset<"range">[] {
  const today = localDay(0);
  return [
    { label: "Today", value: [today, today] },
    { label: "Yesterday", value: [localDay(1), localDay(1)] },
    { label: "Last 7 days", value: [localDay(6), today] },
    { label: "Last 30 days", value: [localDay(29), today] },
    { label: "Last 90 days", value: [localDay(89), today] },
  ];
}

export function AuditDays({
  from,
  to,
  onChange,
  error,
}: {
  /** First and last day, `YYYY-MM-DD`, or "" for no bound. */
  from: string;
  to: string;
  onChange(range: { from: string; to: string }): void;
  error?: string | null;
}) {
  return (
    <DatePickerInput
      type="range"
      label="Days"
      placeholder="Every day"
      value={[from || null, to || null]}
      onChange={([first, last]) => onChange({ from: first ?? "", to: last ?? "" })}
      presets={presets()}
      maxDate={localDay(0)}
      valueFormat="D MMM YYYY"
      allowSingleDateInRange
      clearable
      error={error}
      // The placeholder is text in the picker's button, not an input's ::placeholder: it needs the contrast of
      // text (WCAG 1.4.3), which Mantine's placeholder grey (2.07:1 on white) lacks.
      styles={{ placeholder: { color: "var(--mantine-color-gray-7)" } }}
      w={{ base: "100%", xs: 260 }}
    />
  );
}
