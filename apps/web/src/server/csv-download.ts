/**
 * The dashboard's CSV downloads (docs/contract.md section 4): RFC 4180 through papaparse, read in batches as the
 * client takes them, behind the same session cookie as tRPC, refused with the Error body of section 1.
 */
import { AppError, validationError } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { translateError } from "@petstore/core/errors";
import Papa from "papaparse";
import type { z } from "zod";
import { answerHeaders, errorResponse, requestIdOf } from "./http/error-answer.ts";
import { createRequestContext } from "./trpc/context";

/**
 * A field a spreadsheet would run as a formula: its first character alone decides (OWASP "CSV Injection").
 * papaparse's default (`/^[=+\-@\t\r].*$/`) also asks that no line terminator follow, since `.` matches none of
 * LF, CR, U+2028 or U+2029, so `=HYPERLINK(...)` holding one of them would pass unescaped.
 */
export const FORMULA_START = /^[=+\-@\t\r]/;

/** Every field quoted, quotes doubled, CRLF after every line, formulae escaped with a leading `'`. */
const CSV_OPTIONS = { quotes: true, escapeFormulae: FORMULA_START, newline: "\r\n", header: false } as const;

/** A CSV file's shape: its header line and the fields of one row. */
export interface CsvTable<R> {
  columns: readonly string[];
  row(record: R): string[];
}

/** CSV lines (each ended with CRLF) of `rows` in `table`'s shape, with the header line first when `header`. */
export function csvLines<R>(table: CsvTable<R>, rows: R[], header = false): string {
  const data = rows.map((r) => table.row(r));
  const lines = Papa.unparse(header ? [[...table.columns], ...data] : data, CSV_OPTIONS);
  return lines ? `${lines}\r\n` : "";
}

/**
 * The CSV file of `batches` as a byte stream: the header, then each batch's lines as the reader asks for them
 * (a batch is read only when the previous one was taken), so memory holds one batch whatever the size. A failure
 * while reading fails the stream (the download breaks off rather than ending short); a reader that goes away
 * stops the reading.
 */
export function csvStream<R>(
  table: CsvTable<R>,
  batches: AsyncGenerator<R[], void, undefined>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let header = true;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await batches.next();
        if (next.done) {
          if (header) controller.enqueue(encoder.encode(csvLines(table, [], true)));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(csvLines(table, next.value, header)));
        header = false;
      },
      async cancel() {
        await batches.return();
      },
    },
    { highWaterMark: 0 },
  );
}

/** One download: its query's schema, its rows and its file name. */
export interface CsvDownload<F, R> {
  /** Parses the query parameters (strings, as sent) into the filter. */
  filter: z.ZodType<F, unknown>;
  table: CsvTable<R>;
  batches(rt: Runtime, filter: F): AsyncGenerator<R[], void, undefined>;
  /**
   * For a download the members of a consumer account may make too: the rows of their own account
   * (`accountId`, from the session). Without it, members are refused like staff.
   */
  forMember?(rt: Runtime, accountId: string, filter: F): AsyncGenerator<R[], void, undefined>;
  /** For a download staff may make too (the animals), not admins alone. */
  staff?: boolean;
  /** The file's name for `filter`; `stamp` is the time of the answer, `2026-11-29-10-00-00`. */
  filename(filter: F, stamp: string): string;
}

/** Puts back the first batch, already read, in front of the rest. */
async function* withFirst<R>(first: IteratorResult<R[], void>, rest: AsyncGenerator<R[], void, undefined>) {
  if (first.done) return;
  yield first.value;
  yield* rest;
}

/**
 * The handler `(rt, request) => response` of `download`: admins (with `staff`, staff too; with `forMember`, members
 * of an account); 401 without a session, 403 for anyone else, 400 for a bad query, 503 when the database is unreachable. The first batch is read before answering, so a
 * database that cannot be read is a 503, not a broken file.
 */
export function csvDownload<F, R>(
  download: CsvDownload<F, R>,
): (rt: Runtime, req: Request) => Promise<Response> {
  return async (rt, req) => {
    const requestId = requestIdOf(req.headers.get("x-request-id"));
    const refuse = (error: AppError) => errorResponse(error, requestId);
    try {
      const { session } = await createRequestContext(rt, req, new Headers());
      if (!session) return refuse(new AppError("unauthorized", "Sign in to continue."));
      const member = session.user.accountId;
      if (member ? !download.forMember : session.user.role !== "admin" && !download.staff)
        return refuse(new AppError("forbidden", "Only admins may do this."));
      const filter = download.filter.safeParse(Object.fromEntries(new URL(req.url).searchParams));
      if (!filter.success) return refuse(validationError(filter.error));
      const stamp = rt.clock().toISOString().slice(0, 19).replace(/[:T]/g, "-");
      const batches =
        member && download.forMember
          ? download.forMember(rt, member, filter.data)
          : download.batches(rt, filter.data);
      const first = await batches.next();
      return new Response(csvStream(download.table, withFirst(first, batches)), {
        headers: {
          ...answerHeaders(requestId),
          "Content-Type": "text/csv; charset=utf-8",
          "Content-Disposition": `attachment; filename="${download.filename(filter.data, stamp)}"`,
        },
      });
    } catch (error) {
      const { error: answer, kind } = translateError(error);
      if (kind !== "domain")
        rt.logger.error({ err: error, path: new URL(req.url).pathname }, "CSV download failed");
      return refuse(answer);
    }
  };
}
