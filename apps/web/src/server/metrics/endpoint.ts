/**
 * GET /metrics: the process's metrics in the Prometheus text format (docs/contract.md section 5; names in
 * docs/operations.md "Metrics"). Outside /v1, so neither authenticated by API keys nor counted in the API's
 * buckets.
 * - METRICS_ENABLED off: 404 `not_found`.
 * - METRICS_TOKEN set (required in production, packages/config): the scrape must send
 *   `Authorization: Bearer <token>`, else 401 `unauthorized` (JSON error body; `WWW-Authenticate: Bearer`),
 *   compared in constant time on SHA-256 digests so neither the token nor its length leaks through timing.
 * - Every request counts against its client address's scrape budget (`METRICS_SCRAPES_PER_MINUTE`, docs/contract.md
 *   section 5), checked first: beyond it, 429 `rate_limited` with Retry-After, from memory until the minute
 *   ends. A scraper sends a few a minute; a flood, even with the token, gets cheap refusals instead of the text.
 * - A scrape is computed at most once per second per instance: scrapes within that second, or while one is
 *   being computed, get the same text, so a flood of scrapes costs no more than one a second.
 * Every answer carries `Cache-Control: no-store`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Config } from "@petstore/config";
import type { Problem } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { trustedClientIp } from "../client-ip.ts";
import { errorResponse } from "../http/error-answer.ts";
import { rateLimitHeaders } from "../http/rate-limit-headers.ts";
import { observeRuntime } from "./collectors.ts";
import { getMetrics } from "./registry.ts";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether `authorization` (the request header) is `Bearer <token>`. */
export function bearerMatches(authorization: string | null, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
  // A missing or malformed header compares the empty string, which never equals a token (>= 16 chars).
  return timingSafeEqual(digest(match?.[1] ?? ""), digest(token));
}

const refuse = (problem: Problem, request: Request) =>
  errorResponse(problem, request.headers.get("x-request-id"));

/** How long a computed scrape is served again (ms). */
export const SCRAPE_REUSE_MS = 1000;

/**
 * The /metrics handler over the runtime `runtime()` resolves to (undefined: it could not be opened, the
 * database is down). `draining()` says whether the instance is stopping (for `petstore_ready`).
 */
export function metricsEndpoint(
  settings: Config["metrics"],
  runtime: () => Promise<Runtime | undefined>,
  draining: () => boolean = () => false,
): (request: Request) => Promise<Response> {
  let last: { at: number; text: Promise<string> } | undefined;

  const scrape = (): Promise<string> => {
    const now = Date.now();
    if (last && now - last.at < SCRAPE_REUSE_MS) return last.text;
    const metrics = getMetrics();
    const text = (async () => {
      if (!metrics) return "";
      metrics.scrape.state = await observeRuntime(await runtime(), draining());
      return metrics.registry.metrics();
    })();
    last = { at: now, text };
    text.catch(() => {
      if (last?.text === text) last = undefined;
    });
    return text;
  };

  return async (request) => {
    const metrics = getMetrics();
    if (!metrics)
      return refuse({ code: "not_found", message: "Metrics are disabled (METRICS_ENABLED)." }, request);
    const rt = await runtime();
    if (rt) {
      const ip = trustedClientIp(request.headers);
      const decision = await rt.rateLimiter.checkAnonymous(ip, "metrics");
      if (!decision.allowed) {
        await rt.rateLimiter.holdRefusal(decision);
        const headers = rateLimitHeaders(decision);
        const retry = headers["Retry-After"] ?? "1";
        return refuse(
          {
            code: "rate_limited",
            message: `Too many scrapes from this address: ${decision.reported?.limit ?? ""} per minute. Retry after ${retry} s.`,
            headers,
          },
          request,
        );
      }
    }
    if (
      settings.token !== undefined &&
      !bearerMatches(request.headers.get("authorization"), settings.token)
    ) {
      return refuse(
        {
          code: "unauthorized",
          message: "Send the metrics token as `Authorization: Bearer <METRICS_TOKEN>`.",
          headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
        },
        request,
      );
    }
    return new Response(await scrape(), {
      status: 200,
      headers: { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" },
    });
  };
}
