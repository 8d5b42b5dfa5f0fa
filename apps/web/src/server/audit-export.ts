/**
 * `GET /api/audit/export` (docs/contract.md section 4 "Audit log"): the audit log as a CSV download, streamed
 * for any range. Query parameters are the audit filters (`actor`, `action`, `entityType`, `entityId`, `from`,
 * `to`: AuditLogFilter); the file has every matching entry, newest first, read from the database in batches
 * of AUDIT_EXPORT_BATCH as the client takes them (audit-csv.ts), so neither side holds the whole range.
 * Admins only, with the same session cookie as tRPC. Refusals are the Error body of docs/contract.md section
 * 1: 401 without a session, 403 for staff, 400 for a bad filter, 503 when the database is unreachable.
 */
import { AppError, AuditLogFilter, validationError } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { translateError } from "@petstore/core/errors";
import { auditCsvStream } from "./audit-csv";
import { createRequestContext } from "./trpc/context";

const COMMON = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

function refusal(error: AppError): Response {
  return Response.json(error.toBody(), { status: error.status, headers: { ...COMMON, ...error.headers } });
}

/** The answer to export request `req` on `rt` (see the module comment). */
export async function auditExportResponse(rt: Runtime, req: Request): Promise<Response> {
  try {
    const { session } = await createRequestContext(rt, req, new Headers());
    if (!session) return refusal(new AppError("unauthorized", "Sign in to continue."));
    if (session.user.role !== "admin") return refusal(new AppError("forbidden", "Only admins may do this."));
    const query = Object.fromEntries(new URL(req.url).searchParams);
    const filter = AuditLogFilter.safeParse(query);
    if (!filter.success) return refusal(validationError(filter.error));
    const stamp = rt.clock().toISOString().slice(0, 19).replace(/[:T]/g, "-");
    // The first batch is read before answering, so a database that cannot be read is a 503, not a broken file.
    const batches = rt.auditLog.exportBatches(filter.data);
    const first = await batches.next();
    async function* all() {
      if (first.done) return;
      yield first.value;
      yield* batches;
    }
    return new Response(auditCsvStream(all()), {
      headers: {
        ...COMMON,
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="audit-log-${stamp}.csv"`,
      },
    });
  } catch (error) {
    const { error: answer, kind } = translateError(error);
    if (kind !== "domain") rt.logger.error({ err: error }, "audit export failed");
    return refusal(answer);
  }
}
