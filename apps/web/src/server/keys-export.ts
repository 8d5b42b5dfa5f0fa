/**
 * `GET /api/keys/export?query=acme&plan=pro&state=working&activity=refused7d&sort=requests30d` (docs/contract.md
 * section 4 "API keys"): every key of the admin's filtered list, in its order, with the list's figures, as a CSV
 * download (csv-download.ts), read in batches of KEYS_EXPORT_BATCH keys.
 */
import { ApiKeySearch } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { type CsvTable, csvDownload } from "./csv-download";

export const KEYS_EXPORT = "/api/keys/export";

/** Keys per batch (one page of the list's search, then its figures). */
export const KEYS_EXPORT_BATCH = 1_000;

const KeysExportFilter = ApiKeySearch.omit({ page: true, pageSize: true });
type KeysExportFilter = ReturnType<typeof KeysExportFilter.parse>;

type KeyRow = Awaited<ReturnType<typeof withFigures>>[number];

/** A page of keys with the figures the list shows (the usage service's, as in apiKeys.list). */
async function withFigures(rt: Runtime, filter: KeysExportFilter, page: number) {
  const found = await rt.apiKeys.search({ ...filter, page, pageSize: KEYS_EXPORT_BATCH });
  return rt.usage.withWindowSums(await rt.usage.withRequestsToday(found.rows));
}

/** The filtered list's pages, one batch each, until one comes back short. */
async function* keyBatches(rt: Runtime, filter: KeysExportFilter): AsyncGenerator<KeyRow[], void, undefined> {
  for (let page = 1; ; page++) {
    const rows = await withFigures(rt, filter, page);
    if (rows.length > 0) yield rows;
    if (rows.length < KEYS_EXPORT_BATCH) return;
  }
}

/** The keys CSV's shape: the list's columns, each figure its own column, instants in ISO 8601 (UTC). */
export const KEYS_CSV: CsvTable<KeyRow> = {
  columns: [
    "key id",
    "name",
    "prefix",
    "plan",
    "environment",
    "state",
    "created",
    "last used",
    "requests today",
    "requests, 7 days",
    "requests, 30 days",
    "getPet calls, 30 days",
    "429s, 7 days",
    "bans, 30 days",
  ],
  row: (k) => [
    k.id,
    k.name,
    k.prefix,
    k.plan,
    k.environment,
    k.state,
    k.createdAt,
    k.lastUsedAt ?? "",
    ...[k.requestsToday, k.requests7d, k.requests30d, k.getPetCalls30d, k.rateLimited7d, k.bans30d].map(
      String,
    ),
  ],
};

/** The answer to export request `req` on `rt`. */
export const keysExportResponse = csvDownload({
  filter: KeysExportFilter,
  table: KEYS_CSV,
  batches: keyBatches,
  filename: (_filter, stamp) => `api-keys-${stamp}.csv`,
});
