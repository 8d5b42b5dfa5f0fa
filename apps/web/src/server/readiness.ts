/**
 * The readiness report of GET /readyz (docs/contract.md section 5; docs/operations.md "Health"): 503 only when
 * this instance cannot serve: it is draining before a stop, or its database does not answer `SELECT 1` within
 * 1 s. A rate-limit store that does not answer is a degraded state the contract tolerates (limits fail open),
 * so it leaves the instance ready: the report says `degraded` and names the store's state, and /metrics
 * exposes it. Otherwise one store outage would take every instance out of the load balancer at once.
 * Each check also tells the runtime's dependency status what it found, which logs a line when a dependency goes
 * down or comes back (the end of an outage is logged by the first check that finds the dependency up).
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
  rt: Pick<Runtime, "health" | "config" | "rateLimiter" | "dependencies"> | undefined,
  draining = false,
): Promise<ReadinessReport> {
  if (!rt) return { status: "unavailable", checks: { database: { ok: false, detail: "not connected" } } };
  const [database, store] = await Promise.all([
    withTimeout(rt.health(), DATABASE_CHECK_MS, "database").then(
      (): Check => {
        rt.dependencies.up("database");
        return { ok: true, detail: rt.config.database.kind };
      },
      (error: unknown): Check => {
        // Logged once when the database goes down, not at every check (dependency-status.ts).
        rt.dependencies.down("database", error);
        return { ok: false, detail: firstLine(error) };
      },
    ),
    rt.rateLimiter.health(),
  ]);
  if (store.ok) rt.dependencies.up("rateLimitStore");
  else rt.dependencies.down("rateLimitStore", new Error(`${store.store} did not answer a PING`));
  const report: ReadinessReport = {
    status: database.ok && !draining ? "ok" : "unavailable",
    checks: { database, rateLimitStore: { ok: store.ok, detail: store.store, breaker: store.breaker } },
  };
  if (draining) report.draining = true;
  if (!store.ok) report.degraded = true;
  return report;
}
