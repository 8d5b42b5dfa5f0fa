/** Readiness report for /readyz: database and rate-limit store reachability, each with its latency. */
import type { Runtime } from "@petstore/core";
import { getRuntime } from "./runtime.ts";

export interface ReadinessReport {
  status: "ok" | "unavailable";
  checks: Record<string, { ok: boolean; detail?: string }>;
}

const TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms).unref(),
    ),
  ]);
}

/** Readiness of the process runtime (what GET /readyz answers). */
export async function checkReadiness(): Promise<ReadinessReport> {
  let rt: Runtime;
  try {
    rt = await withTimeout(getRuntime(), "runtime");
  } catch (error) {
    return report({ database: { ok: false, detail: (error as Error).message.split("\n")[0] } });
  }
  return readinessOf(rt);
}

/**
 * Readiness of `rt`: the database answers `SELECT 1` within `databaseTimeoutMs` (default 2 s) and the
 * rate-limit store a PING within its own timeout (RATE_LIMIT_STORE_TIMEOUT_MS).
 */
export async function readinessOf(
  rt: Pick<Runtime, "health" | "config" | "rateLimiter">,
  databaseTimeoutMs = TIMEOUT_MS,
): Promise<ReadinessReport> {
  const checks: ReadinessReport["checks"] = {};
  try {
    await withTimeout(rt.health(), "database", databaseTimeoutMs);
    checks.database = { ok: true, detail: rt.config.database.kind };
  } catch (error) {
    checks.database = { ok: false, detail: (error as Error).message.split("\n")[0] };
  }
  const store = await rt.rateLimiter.health();
  checks.rateLimitStore = { ok: store.ok, detail: store.store };
  return report(checks);
}

function report(checks: ReadinessReport["checks"]): ReadinessReport {
  return { status: Object.values(checks).every((c) => c.ok) ? "ok" : "unavailable", checks };
}
