/**
 * GET /metrics: the process's metrics in the Prometheus text format (docs/contract.md section 5; names and
 * settings in docs/operations.md "Metrics"). Outside /v1, so neither authenticated by API keys nor counted in the
 * API's buckets. Checked in this order, the cheap refusals first:
 * - METRICS_ENABLED off: 404 `not_found`.
 * - Without METRICS_TOKEN and without METRICS_PUBLIC=true: only a client on loopback (127.0.0.0/8, ::1; the
 *   client address of client-ip.ts, and no X-Forwarded-For or Forwarded header that no trusted proxy vouched
 *   for, which a proxy on the same host would send) is served; any other gets 403 `forbidden` from memory,
 *   before its scrape budget is counted, so a flood from elsewhere costs no store round trip.
 * - Every other request counts against its client address's scrape budget (`METRICS_SCRAPES_PER_MINUTE`,
 *   docs/contract.md section 5): beyond it, 429 `rate_limited` with Retry-After, from memory until the minute
 *   ends. A scraper sends a few a minute; a flood, even with the token, gets cheap refusals instead of the text.
 * - METRICS_TOKEN set (required in production, packages/config): the scrape must send
 *   `Authorization: Bearer <token>`, else 401 `unauthorized` (JSON error body; `WWW-Authenticate: Bearer`),
 *   compared in constant time on SHA-256 digests so neither the token nor its length leaks through timing.
 * - A scrape is rendered at most once per second per instance (by the injected monotonic clock), and never twice
 *   at once: scrapes within that second, or while a render is under way, get the same bytes, so a flood of
 *   scrapes costs no more than one render a second.
 * Every answer carries `Cache-Control: no-store`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { BlockList, isIPv6 } from "node:net";
import type { Config } from "@petstore/config";
import type { Problem } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { TRUSTED_HOPS_HEADER, trustedClientIp } from "../client-ip.ts";
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

/** How long a rendered scrape is served again (ms). */
export const SCRAPE_REUSE_MS = 1000;

/** Loopback: 127.0.0.0/8 (RFC 1122 section 3.2.1.3) and ::1 (RFC 4291 section 2.5.3). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/**
 * Whether `request` comes from this host: its client address (client-ip.ts) is on loopback, and it carries no
 * forwarding header that no trusted proxy vouched for (a reverse proxy on the same host connects from loopback
 * on behalf of clients anywhere). No I/O.
 */
export function isLoopbackClient(headers: Pick<Headers, "get">): boolean {
  const ip = trustedClientIp(headers);
  if (ip === "unknown") return false;
  const family = isIPv6(ip) ? "ipv6" : "ipv4";
  let local: boolean;
  try {
    local = LOOPBACK.check(ip, family);
  } catch {
    return false;
  }
  if (!local) return false;
  const vouched = Number(headers.get(TRUSTED_HOPS_HEADER)) > 0;
  return vouched || (headers.get("x-forwarded-for") === null && headers.get("forwarded") === null);
}

/** The 403 of a scrape from outside loopback while the endpoint is not open to it. */
const NOT_LOOPBACK: Problem = {
  code: "forbidden",
  message:
    "Metrics without METRICS_TOKEN are served to this host's loopback clients only: set METRICS_TOKEN (or METRICS_PUBLIC=true).",
};

/** A rendered scrape: when its render started (the injected clock, ms), and its bytes once rendered. */
interface Render {
  startedAt: number;
  settled: boolean;
  body: Promise<Uint8Array<ArrayBuffer>>;
}

/**
 * The /metrics handler over the runtime `runtime()` resolves to (undefined: it could not be opened, the
 * database is down). `draining()` says whether the instance is stopping (for `petstore_ready`); `now()` is a
 * monotonic clock in ms (performance.now unless a test injects one) deciding when a render is reused.
 */
export function metricsEndpoint(
  settings: Config["metrics"],
  runtime: () => Promise<Runtime | undefined>,
  draining: () => boolean = () => false,
  now: () => number = () => performance.now(),
): (request: Request) => Promise<Response> {
  let last: Render | undefined;
  const loopbackOnly = settings.token === undefined && !settings.public;

  /** The scrape's bytes: the last render's while it is under way or less than SCRAPE_REUSE_MS old, else a new one. */
  const scrape = (): Promise<Uint8Array<ArrayBuffer>> => {
    const at = now();
    if (last && (!last.settled || at - last.startedAt < SCRAPE_REUSE_MS)) return last.body;
    const metrics = getMetrics();
    const render: Render = {
      startedAt: at,
      settled: false,
      body: (async () => {
        if (!metrics) return new Uint8Array();
        metrics.scrape.state = await observeRuntime(await runtime(), draining());
        return Buffer.from(await metrics.registry.metrics());
      })(),
    };
    last = render;
    render.body.then(
      () => {
        render.settled = true;
      },
      () => {
        // A failed render is not reused: the next scrape renders again.
        if (last === render) last = undefined;
      },
    );
    return render.body;
  };

  return async (request) => {
    const metrics = getMetrics();
    if (!metrics)
      return refuse({ code: "not_found", message: "Metrics are disabled (METRICS_ENABLED)." }, request);
    if (loopbackOnly && !isLoopbackClient(request.headers)) return refuse(NOT_LOOPBACK, request);
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
