/**
 * `GET /api/keys/deprecated-calls/export?days=30&sort=calls` (docs/contract.md section 4 "API keys"): every key
 * that called the deprecated getPet in the window (DeprecatedCallsFilter), in the view's order, as a CSV
 * download (csv-download.ts), read in batches of DEPRECATED_CALLS_EXPORT_BATCH keys.
 */
import { DeprecatedCallsFilter } from "@petstore/contracts";
import type { DeprecatedCaller } from "@petstore/core";
import { z } from "zod";
import { type CsvTable, csvDownload } from "./csv-download";

export const DEPRECATED_CALLS_EXPORT = "/api/keys/deprecated-calls/export";

export const DEPRECATED_CALLS_CSV_COLUMNS = [
  "key id",
  "name",
  "prefix",
  "plan",
  "state",
  "getPet calls",
  "last getPet call (UTC hour)",
  "contacts",
] as const;

/** The deprecated callers' CSV shape. */
export const DEPRECATED_CALLS_CSV: CsvTable<DeprecatedCaller> = {
  columns: DEPRECATED_CALLS_CSV_COLUMNS,
  row: (r) => [r.id, r.name, r.prefix, r.plan, r.state, String(r.calls), r.lastCallAt, r.contacts.join("; ")],
};

/** The answer to export request `req` on `rt`; `days` arrives as text. */
export const deprecatedCallsExportResponse = csvDownload({
  filter: z.preprocess(
    (query: Record<string, string>) =>
      query.days === undefined ? query : { ...query, days: Number(query.days) },
    DeprecatedCallsFilter,
  ),
  table: DEPRECATED_CALLS_CSV,
  batches: (rt, filter) => rt.usage.deprecatedCallsBatches(filter),
  filename: (filter, stamp) => `deprecated-getpet-${filter.days}d-${stamp}.csv`,
});
