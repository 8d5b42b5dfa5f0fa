/**
 * `GET /api/keys/deprecated-calls/export?days=30&sort=calls` (docs/contract.md section 4 "API keys"): every key
 * that called the deprecated getPet in the window, in the view's order, as a CSV download. Query parameters
 * are the view's filter (DeprecatedCallsFilter: `days` 7 or 30, `sort` `calls` or `lastCall`); the rows are
 * read in batches of DEPRECATED_CALLS_EXPORT_BATCH keys as the client takes them, written as the audit export
 * writes its file (audit-csv.ts: RFC 4180 through papaparse, every field quoted, CRLF, formulae escaped).
 * Admins only, with the same session cookie as tRPC; refusals are the Error body of docs/contract.md section
 * 1: 401 without a session, 403 for staff, 400 for a bad filter, 503 when the database is unreachable.
 */
import { AppError, DeprecatedCallsFilter, validationError } from "@petstore/contracts";
import type { DeprecatedCaller, Runtime } from "@petstore/core";
import { translateError } from "@petstore/core/errors";
import Papa from "papaparse";
import { CSV_OPTIONS } from "./audit-csv";
import { createRequestContext } from "./trpc/context";

export const DEPRECATED_CALLS_EXPORT = "/api/keys/deprecated-calls/export";

export const DEPRECATED_CALLS_CSV_COLUMNS = [
  "key id",
  "name",
  "prefix",
  "plan",
  "state",
  "getPet calls",
  "last getPet call (UTC hour)",
] as const;

const COMMON = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

function refusal(error: AppError): Response {
  return Response.json(error.toBody(), { status: error.status, headers: { ...COMMON, ...error.headers } });
}

/** CSV lines (each ended with CRLF) of `rows`, with the header line first when `header`. */
export function deprecatedCallsCsvLines(rows: DeprecatedCaller[], header = false): string {
  const data = rows.map((r) => [r.id, r.name, r.prefix, r.plan, r.state, String(r.calls), r.lastCallAt]);
  const lines = Papa.unparse(header ? [[...DEPRECATED_CALLS_CSV_COLUMNS], ...data] : data, CSV_OPTIONS);
  return lines ? `${lines}\r\n` : "";
}

/**
 * The file of `first` (already read) and the rest of `batches` as a byte stream, one batch read per pull, so
 * memory holds one batch; a failure while reading fails the stream (the download breaks off rather than
 * ending short); a reader that goes away stops the reading.
 */
function csvStream(
  first: IteratorResult<DeprecatedCaller[], void>,
  batches: AsyncGenerator<DeprecatedCaller[], void, undefined>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pending: IteratorResult<DeprecatedCaller[], void> | undefined = first;
  let header = true;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = pending ?? (await batches.next());
        pending = undefined;
        if (next.done) {
          if (header) controller.enqueue(encoder.encode(deprecatedCallsCsvLines([], true)));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(deprecatedCallsCsvLines(next.value, header)));
        header = false;
      },
      async cancel() {
        await batches.return();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The answer to export request `req` on `rt` (see the module comment). */
export async function deprecatedCallsExportResponse(rt: Runtime, req: Request): Promise<Response> {
  try {
    const { session } = await createRequestContext(rt, req, new Headers());
    if (!session) return refusal(new AppError("unauthorized", "Sign in to continue."));
    if (session.user.role !== "admin") return refusal(new AppError("forbidden", "Only admins may do this."));
    const query = Object.fromEntries(new URL(req.url).searchParams);
    const filter = DeprecatedCallsFilter.safeParse({
      ...query,
      ...(query.days === undefined ? {} : { days: Number(query.days) }),
    });
    if (!filter.success) return refusal(validationError(filter.error));
    const stamp = rt.clock().toISOString().slice(0, 19).replace(/[:T]/g, "-");
    // The first batch is read before answering, so a database that cannot be read is a 503, not a broken file.
    const batches = rt.usage.deprecatedCallsBatches(filter.data);
    const first = await batches.next();
    return new Response(csvStream(first, batches), {
      headers: {
        ...COMMON,
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="deprecated-getpet-${filter.data.days}d-${stamp}.csv"`,
      },
    });
  } catch (error) {
    const { error: answer, kind } = translateError(error);
    if (kind !== "domain") rt.logger.error({ err: error }, "deprecated calls export failed");
    return refusal(answer);
  }
}
