/**
 * Scrape-time metrics: values read when /metrics is scraped, never on the request path. `observeRuntime`
 * takes one snapshot per scrape (the rate limiter's counters, the readiness checks of /readyz, the number of
 * banned keys); the collectors registered by `registerScrapeCollectors` copy it into the registry from
 * prom-client's `collect()` callbacks. Rate limiting and bans: docs/contract.md section 3; readiness: section 5.
 */
import type { RateLimitMetrics, Runtime } from "@petstore/core";
import { Counter, Gauge, type Registry } from "prom-client";
import { readinessOf } from "../readiness.ts";

/** One scrape's reading of the runtime; absent parts (runtime not open) are left out of the exposition. */
export interface ScrapeState {
  /** The rate limiter's counters since the process started (absent while the runtime cannot be opened). */
  limiter?: RateLimitMetrics;
  /** 1 when the database answered `SELECT 1` within the timeout, else 0. */
  databaseUp: 0 | 1;
  /** 1 when the rate-limit store answered a PING within its timeout, else 0; `store` is its kind. */
  storeUp?: { store: string; up: 0 | 1 };
  /** API keys whose ban has not ended yet (all instances: read from the database); absent when unknown. */
  activeBans?: number;
}

/** Upper bound (ms) of the database checks of one scrape. */
const CHECK_TIMEOUT_MS = 1000;

/** Reads the runtime for one scrape; `rt` undefined means it could not be opened (database down at start). */
export async function observeRuntime(rt: Runtime | undefined): Promise<ScrapeState> {
  if (!rt) return { databaseUp: 0 };
  const [readiness, activeBans] = await Promise.all([
    readinessOf(rt, CHECK_TIMEOUT_MS),
    countActiveBans(rt).catch(() => undefined),
  ]);
  return {
    limiter: rt.rateLimiter.metrics(),
    databaseUp: readiness.checks.database?.ok ? 1 : 0,
    storeUp: {
      store: rt.config.rateLimit.store.kind,
      up: readiness.checks.rateLimitStore?.ok ? 1 : 0,
    },
    ...(activeBans === undefined ? {} : { activeBans }),
  };
}

function countActiveBans(rt: Runtime): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    rt.apiKeys.countBanned(),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("ban count timed out")), CHECK_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The limiter's decisions as `decision` label values (fail_open: admitted unchecked, the store failed). */
const DECISIONS = {
  admitted: "admitted",
  rate_limited: "rate_limited",
  banned: "banned",
  fail_open: "fail_open",
} as const;

/** Registers the scrape-time metrics on `registry`; their `collect()` reads `scrape.state`. */
export function registerScrapeCollectors(registry: Registry, scrape: { state?: ScrapeState }): void {
  const registers = [registry];
  new Counter({
    name: "petstore_rate_limit_decisions_total",
    help: "Rate-limit checks of this instance by decision: admitted, rate_limited (429), banned (429 key_banned), fail_open (store failed, let through).",
    labelNames: ["decision"] as const,
    registers,
    collect() {
      const s = scrape.state?.limiter;
      this.reset();
      if (!s) return;
      this.inc({ decision: DECISIONS.admitted }, s.admitted);
      this.inc({ decision: DECISIONS.rate_limited }, s.denied - s.banned);
      this.inc({ decision: DECISIONS.banned }, s.banned);
      this.inc({ decision: DECISIONS.fail_open }, s.failOpen);
    },
  });
  new Counter({
    name: "petstore_rate_limit_store_failures_total",
    help: "Rate-limit store operations of this instance that failed or timed out.",
    registers,
    collect() {
      this.reset();
      this.inc(scrape.state?.limiter?.storeFailures ?? 0);
    },
  });
  new Counter({
    name: "petstore_rate_limit_bans_total",
    help: "Bans issued by this instance.",
    registers,
    collect() {
      this.reset();
      this.inc(scrape.state?.limiter?.bans ?? 0);
    },
  });
  new Gauge({
    name: "petstore_rate_limit_active_bans",
    help: "API keys currently banned (all instances, from the database); NaN when the database did not answer.",
    registers,
    collect() {
      this.set(scrape.state?.activeBans ?? Number.NaN);
    },
  });
  new Gauge({
    name: "petstore_database_up",
    help: "1 when the database answered SELECT 1 within 1 s at scrape time, else 0.",
    registers,
    collect() {
      this.set(scrape.state?.databaseUp ?? 0);
    },
  });
  new Gauge({
    name: "petstore_rate_limit_store_up",
    help: "1 when the rate-limit store answered a PING within its timeout at scrape time, else 0; by store kind.",
    labelNames: ["store"] as const,
    registers,
    collect() {
      this.reset();
      const s = scrape.state?.storeUp;
      if (s) this.set({ store: s.store }, s.up);
    },
  });
}
