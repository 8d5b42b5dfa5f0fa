/**
 * GET /metrics: the process's metrics in the Prometheus text format (docs/contract.md section 5; names and a
 * scrape config in the README, "Metrics").
 * Outside /v1, so neither authenticated by API keys nor counted by the API's rate limiter.
 * - METRICS_ENABLED off: 404 `not_found`.
 * - METRICS_TOKEN set: the scrape must send `Authorization: Bearer <token>`, else 401 `unauthorized`
 *   (JSON error body, docs/interface.md; `WWW-Authenticate: Bearer`). Compared in constant time on SHA-256
 *   digests, so neither the token's content nor its length leaks through timing.
 * Every answer carries `Cache-Control: no-store`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { getConfig } from "@petstore/config";
import { AppError } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { errorResponse } from "../rest/problem.ts";
import { getRuntime } from "../runtime.ts";
import { observeRuntime } from "./collectors.ts";
import { getMetrics } from "./registry.ts";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether `authorization` (the request header) is `Bearer <token>`. */
export function bearerMatches(authorization: string | null, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
  // A missing or malformed header compares the empty string, which never equals a token (>= 16 chars).
  return timingSafeEqual(digest(match?.[1] ?? ""), digest(token));
}

function refuse(error: AppError): Response {
  const response = errorResponse(error);
  response.headers.set("Cache-Control", "no-store");
  return response;
}

/** How long a scrape waits for the runtime to open before reporting the database down (ms). */
const RUNTIME_WAIT_MS = 1000;

async function openedRuntime(): Promise<Runtime | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      getRuntime(),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), RUNTIME_WAIT_MS);
      }),
    ]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Answers a GET /metrics request (see the module comment). */
export async function metricsResponse(request: Request): Promise<Response> {
  const { metrics: settings } = getConfig();
  const metrics = getMetrics();
  if (!metrics) return refuse(new AppError("not_found", "Metrics are disabled (METRICS_ENABLED)."));
  if (settings.token !== undefined && !bearerMatches(request.headers.get("authorization"), settings.token)) {
    return refuse(
      new AppError(
        "unauthorized",
        "Send the metrics token as `Authorization: Bearer <METRICS_TOKEN>`.",
        undefined,
        { "WWW-Authenticate": 'Bearer realm="metrics"' },
      ),
    );
  }
  metrics.scrape.state = await observeRuntime(await openedRuntime());
  const body = await metrics.registry.metrics();
  return new Response(body, {
    status: 200,
    headers: { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" },
  });
}
