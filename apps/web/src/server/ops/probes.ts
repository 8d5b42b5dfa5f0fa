/**
 * GET /healthz (the process is up; nothing checked) and GET /readyz (200 when the database and the rate-limit
 * store answer, else 503 with which one failed; docs/contract.md section 5). Both answer `Cache-Control: no-store`.
 */
import { checkReadiness } from "../readiness.ts";

/** GET /healthz: `{ "status": "ok" }`. */
export function healthResponse(): Response {
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}

/** GET /readyz: the readiness report (readiness.ts), 200 or 503. */
export async function readinessResponse(): Promise<Response> {
  const report = await checkReadiness();
  return Response.json(report, {
    status: report.status === "ok" ? 200 : 503,
    headers: { "Cache-Control": "no-store" },
  });
}
