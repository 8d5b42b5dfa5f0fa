/**
 * GET /healthz (the process is up; nothing checked) and GET /readyz (readiness.ts: 503 while draining or
 * while the database does not answer; docs/contract.md section 5), with the headers of every JSON answer.
 */
import type { Runtime } from "@petstore/core";
import { jsonHeaders, requestIdOf } from "../http/error-answer.ts";
import { type ReadinessReport, readinessOf } from "../readiness.ts";

const headersFor = (request: Request) => jsonHeaders(requestIdOf(request.headers.get("x-request-id")));

/** GET /healthz: `{ "status": "ok" }`. */
export function healthResponse(request: Request): Response {
  return new Response(JSON.stringify({ status: "ok" }), { headers: headersFor(request) });
}

/** How long a readiness check is answered again (ms): a flood of probes costs one check a second. */
const CHECK_REUSE_MS = 1000;

/**
 * The /readyz handler over the runtime `runtime()` resolves to (undefined: not open, the database is down);
 * `draining()` is read on every probe, so a stop shows at once.
 */
export function readinessEndpoint(
  runtime: () => Promise<Runtime | undefined>,
  draining: () => boolean = () => false,
): (request: Request) => Promise<Response> {
  let last: { at: number; report: Promise<ReadinessReport> } | undefined;
  return async (request) => {
    const now = Date.now();
    if (!last || now - last.at >= CHECK_REUSE_MS) {
      last = { at: now, report: runtime().then((rt) => readinessOf(rt)) };
    }
    const checked = await last.report;
    const report: ReadinessReport = draining()
      ? { ...checked, status: "unavailable", draining: true }
      : checked;
    return new Response(JSON.stringify(report), {
      status: report.status === "ok" ? 200 : 503,
      headers: headersFor(request),
    });
  };
}
