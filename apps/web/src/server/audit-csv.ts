/** The audit log as CSV (csv-download.ts): one row per entry; `before` and `after` as JSON. */
import type { AuditLogEntry } from "@petstore/core";
import type { CsvTable } from "./csv-download";

export const AUDIT_CSV_COLUMNS = [
  "id",
  "time (UTC)",
  "actor",
  "action",
  "entity type",
  "entity id",
  "entity name",
  "before",
  "after",
] as const;

const json = (value: unknown) => (value === null || value === undefined ? "" : JSON.stringify(value));

/** The audit log's CSV shape. */
export const AUDIT_CSV: CsvTable<AuditLogEntry> = {
  columns: AUDIT_CSV_COLUMNS,
  row: (r) => [
    String(r.id),
    r.at,
    r.actor,
    r.action,
    r.entityType,
    r.entityId,
    r.entityName ?? "",
    json(r.before),
    json(r.after),
  ],
};
