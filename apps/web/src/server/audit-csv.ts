/**
 * The audit log as CSV (RFC 4180, via papaparse): one header row, then one row per entry; every field
 * quoted, quotes doubled, every line ended with CRLF. Fields that a spreadsheet would run as a formula
 * (starting with `=`, `+`, `-`, `@`, tab or carriage return, whatever follows) get a leading `'`
 * (papaparse's `escapeFormulae` with FORMULA_START), so an animal called `=HYPERLINK(...)` stays text
 * (OWASP "CSV Injection").
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

/**
 * A field a spreadsheet would run as a formula: its first character alone decides. papaparse's default
 * (`/^[=+\-@\t\r].*$/`) also asks that no line terminator follow, since `.` matches none of LF, CR, U+2028 or
 * U+2029, so `=HYPERLINK(...)` holding one of them would pass unescaped.
 */
export const FORMULA_START = /^[=+\-@\t\r]/;

export const CSV_OPTIONS = {
  quotes: true,
  escapeFormulae: FORMULA_START,
  newline: "\r\n",
  header: false,
} as const;

/** CSV lines (each ended with CRLF) of `rows`, with the header line first when `header`. */
export function auditCsvLines(rows: AuditLogEntry[], header = false): string {
  const data = rows.map((r) => [
    String(r.id),
    r.at,
    r.actor,
    r.action,
    r.entityType,
    r.entityId,
    r.entityName ?? "",
    json(r.before),
    json(r.after),
  ]);
  const lines = Papa.unparse(header ? [[...AUDIT_CSV_COLUMNS], ...data] : data, CSV_OPTIONS);
  return lines ? `${lines}\r\n` : "";
}

/**
 * The CSV file of `batches` as a byte stream: the header, then each batch's lines as the reader asks for them
 * (a batch is read only when the previous one was taken), so memory holds one batch whatever the size of the
 * log. A failure while reading fails the stream (the download breaks off rather than ending short); a
 * reader that goes away stops the reading.
 */
export function auditCsvStream(
  batches: AsyncGenerator<AuditLogEntry[], void, undefined>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let header = true;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await batches.next();
        if (next.done) {
          if (header) controller.enqueue(encoder.encode(auditCsvLines([], true)));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(auditCsvLines(next.value, header)));
        header = false;
      },
      async cancel() {
        await batches.return();
      },
    },
    { highWaterMark: 0 },
  );
}
