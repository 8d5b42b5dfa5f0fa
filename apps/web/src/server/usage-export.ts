/**
 * `GET /api/usage/export?month=YYYY-MM[&account=<id>]` (docs/contract.md section 7, "Usage for billing"): an
 * account's requests in a UTC month by operation and outcome, as a CSV download written as the audit export
 * writes its file (audit-csv.ts: RFC 4180 through papaparse, every field quoted, CRLF, formulae escaped). Admins
 * name one account, or none for every account; a member of an account gets its own (an `account` naming another
 * is 404). Refusals are the Error body of docs/contract.md section 1: 401 without a session, 403 for staff, 400
 * for a bad or future month, 503 when the database is unreachable.
 */
import { AppError, BillingExportQuery, validationError } from "@petstore/contracts";
import type { BillingExport, Runtime } from "@petstore/core";
import { translateError } from "@petstore/core/errors";
import Papa from "papaparse";
import { CSV_OPTIONS } from "./audit-csv";
import { createRequestContext } from "./trpc/context";

export const USAGE_EXPORT = "/api/usage/export";

export const USAGE_CSV_COLUMNS = [
  "account id",
  "account name",
  "month",
  "operation",
  "outcome",
  "requests",
] as const;

const COMMON = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

function refusal(error: AppError): Response {
  return Response.json(error.toBody(), { status: error.status, headers: { ...COMMON, ...error.headers } });
}

/** The CSV file of `exported` (CRLF lines, the header first). */
export function usageCsv(exported: BillingExport): string {
  const data = exported.rows.map((r) => [
    r.accountId,
    r.accountName,
    r.month,
    r.operation,
    r.outcome,
    String(r.requests),
  ]);
  return `${Papa.unparse([[...USAGE_CSV_COLUMNS], ...data], CSV_OPTIONS)}\r\n`;
}

/** The answer to export request `req` on `rt` (see the module comment). */
export async function usageExportResponse(rt: Runtime, req: Request): Promise<Response> {
  try {
    const { session } = await createRequestContext(rt, req, new Headers());
    if (!session) return refusal(new AppError("unauthorized", "Sign in to continue."));
    const query = BillingExportQuery.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!query.success) return refusal(validationError(query.error));
    const { user } = session;
    const { month, account } = query.data;
    let exported: BillingExport;
    if (user.accountId) {
      // A member's own account only; another's is answered as one that does not exist.
      if (account && account !== user.accountId) throw new AppError("not_found", `No account ${account}.`);
      exported = await rt.forAccount(user.accountId).billing(month);
    } else if (user.role === "admin") {
      exported = await rt.usage.billing(month, account);
    } else {
      return refusal(new AppError("forbidden", "Only admins may do this."));
    }
    return new Response(usageCsv(exported), {
      headers: {
        ...COMMON,
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="usage-${month}${account ? `-${account.slice(0, 8)}` : ""}${exported.final ? "" : "-partial"}.csv"`,
      },
    });
  } catch (error) {
    const { error: answer, kind } = translateError(error);
    if (kind !== "domain") rt.logger.error({ err: error }, "usage export failed");
    return refusal(answer);
  }
}
