/**
 * An account's daily usage as CSV (RFC 4180 through papaparse, as the audit export: every field quoted, CRLF):
 * one row per UTC day with its requests, each outcome and the latency percentiles.
 */
import Papa from "papaparse";
import { OUTCOME_SERIES, type Traffic } from "@/admin/analytics/traffic-charts";

export function dailyUsageCsv(daily: Traffic["daily"]): string {
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
export function downloadText(filename: string, text: string, type = "text/csv;charset=utf-8") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
