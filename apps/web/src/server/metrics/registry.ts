/**
 * The process's Prometheus metrics (prom-client), one registry per process.
 * Served by GET /metrics (docs/contract.md section 5); the metric names are listed in docs/operations.md.
 *
 * Request metrics are recorded on the request path (`recordRequest`, one counter increment and one histogram
 * observation); everything else is read at scrape time by the collectors in `collectors.ts`.
 * With METRICS_ENABLED off (packages/config) nothing is created and `recordRequest` does nothing.
 */
import { getConfig } from "@petstore/config";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { registerScrapeCollectors, type ScrapeState } from "./collectors.ts";

/** Everything the process exposes on /metrics. */
export interface Metrics {
  registry: Registry;
  /** `petstore_http_requests_total{route,method,status}` */
  requests: Counter<"route" | "method" | "status">;
  /** `petstore_http_request_duration_seconds{route}` */
  duration: Histogram<"route">;
  /** What the scrape-time collectors read; set by the /metrics handler just before rendering. */
  scrape: { state?: ScrapeState };
}

/** Latency buckets in seconds: REST operations take milliseconds; the top buckets catch store/DB timeouts. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Methods counted under their own name; anything else is `other` (label values stay a small fixed set). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function create(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const scrape: Metrics["scrape"] = {};
  registerScrapeCollectors(registry, scrape);
  return {
    registry,
    scrape,
    requests: new Counter({
      name: "petstore_http_requests_total",
      help: "HTTP requests answered, by route (a /v1 route template, page route pattern, trpc:<procedure>, probe path, static, unmatched), method and status code.",
      labelNames: ["route", "method", "status"] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: "petstore_http_request_duration_seconds",
      help: "HTTP request duration in seconds (request in to response out), by route (as petstore_http_requests_total).",
      labelNames: ["route"] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
  };
}

let local: Metrics | null | undefined;

/** The process's metrics, created on first use; null when METRICS_ENABLED is off. */
export function getMetrics(): Metrics | null {
  if (local === undefined) local = getConfig().metrics.enabled ? create() : null;
  return local;
}

/**
 * Records one answered request: `route` its route label (a /v1 route template such as `/v1/pets/:petId`, or
 * the labels of http/request-log.ts), `status` the HTTP status code, `seconds` the time from request in to response
 * out (undefined: unknown, as for a request the server refused before it was read; then only counted).
 * No-op when metrics are off.
 */
export function recordRequest(route: string, method: string, status: number, seconds?: number): void {
  const m = local === undefined ? getMetrics() : local;
  if (!m) return;
  m.requests.inc({ route, method: METHODS.has(method) ? method : "other", status: String(status) });
  if (seconds !== undefined) m.duration.observe({ route }, seconds);
}
