/**
 * The readiness report of GET /readyz (docs/contract.md section 5; docs/operations.md "Health"): 503 only when
 * this instance cannot serve: it is draining before a stop, or its database does not answer `SELECT 1` within
 * 1 s. A rate-limit store that does not answer is a degraded state the contract tolerates (limits fail open),
 * so it leaves the instance ready: the report says `degraded` and names the store's state, and /metrics
 * exposes it. Otherwise one store outage would take every instance out of the load balancer at once.
 */
import { type Runtime, withTimeout } from "@petstore/core";

export interface Check {
  ok: boolean;
  detail?: string;
}

export interface ReadinessReport {
  status: "ok" | "unavailable";
  /** True while the instance drains before stopping (SIGTERM). */
  draining?: true;
  /** True when something is down that the instance can serve without (the rate-limit store). */
  degraded?: true;
  checks: { database: Check; rateLimitStore?: Check & { breaker: string } };
}

/** Bound of the database check (ms). */
export const DATABASE_CHECK_MS = 1000;

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0];

/**
 * Checks `rt` (undefined: the runtime could not be opened, so the database is down).
 * @param draining whether the instance is stopping
 */
export async function readinessOf(
  rt: Pick<Runtime, "health" | "config" | "rateLimiter"> | undefined,
  draining = false,
): Promise<ReadinessReport> {
  if (!rt) return { status: "unavailable", checks: { database: { ok: false, detail: "not connected" } } };
  const [database, store] = await Promise.all([
    withTimeout(rt.health(), DATABASE_CHECK_MS, "database").then(
      (): Check => ({ ok: true, detail: rt.config.database.kind }),
      (error: unknown): Check => ({ ok: false, detail: firstLine(error) }),
    ),
    rt.rateLimiter.health(),
  ]);
  const report: ReadinessReport = {
    status: database.ok && !draining ? "ok" : "unavailable",
    checks: { database, rateLimitStore: { ok: store.ok, detail: store.store, breaker: store.breaker } },
  };
  if (draining) report.draining = true;
  if (!store.ok) report.degraded = true;
  return report;
}
