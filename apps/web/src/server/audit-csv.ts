/**
 * The audit log as CSV (RFC 4180, via papaparse): one header row, then one row per entry; every field
 * quoted, quotes doubled, lines ended with CRLF. Fields that a spreadsheet would run as a formula (starting
 * with `=`, `+`, `-`, `@`, tab or carriage return) get a leading `'` (papaparse's `escapeFormulae`), so an
 * animal called `=HYPERLINK(...)` stays text (OWASP "CSV Injection").
 */
import type { AuditLogEntry } from "@petstore/core";
import Papa from "papaparse";

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

/** CSV text of `rows` with the columns `AUDIT_CSV_COLUMNS`. */
export function auditCsv(rows: AuditLogEntry[]): string {
  return Papa.unparse(
    {
      fields: [...AUDIT_CSV_COLUMNS],
      data: rows.map((r) => [
        String(r.id),
        r.at,
        r.actor,
        r.action,
        r.entityType,
        r.entityId,
        r.entityName ?? "",
        json(r.before),
        json(r.after),
      ]),
    },
    { quotes: true, escapeFormulae: true, newline: "\r\n", header: true },
  );
}
