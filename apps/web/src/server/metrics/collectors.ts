/**
 * Scrape-time metrics: values read when /metrics is scraped, never on the request path. `observeRuntime`
 * takes one snapshot per scrape (the rate limiter's counters, the readiness checks of /readyz, the number of
 * banned keys); the collectors registered by `registerScrapeCollectors` copy it into the registry from
 * prom-client's `collect()` callbacks. Rate limiting and bans: docs/contract.md section 3; readiness: section 5.
 */
import {
  DEPENDENCIES,
  type Dependency,
  type RateLimitMetrics,
  type Runtime,
  withTimeout,
} from "@petstore/core";
import { Counter, Gauge, type Registry } from "prom-client";
import { DATABASE_CHECK_MS, readinessOf } from "../readiness.ts";
import { observeWebhooks, registerWebhookCollectors, type WebhookScrapeState } from "./webhooks.ts";

/** One scrape's reading of the runtime; absent parts (runtime not open) are left out of the exposition. */
export interface ScrapeState {
  /** The rate limiter's counters since the process started (absent while the runtime cannot be opened). */
  limiter?: RateLimitMetrics;
  /** 1 when the database answered `SELECT 1` within the timeout, else 0. */
  databaseUp: 0 | 1;
  /** 1 when the rate-limit store answered a PING within its timeout, else 0; `store` is its kind. */
  storeUp?: { store: string; up: 0 | 1; breakerOpen: 0 | 1 };
  /** 1 when this instance answers /readyz with 200, else 0 (draining, database down). */
  ready: 0 | 1;
  /** Keys this instance has read from the database to verify bearer tokens. */
  keysRead?: number;
  /** API keys whose ban has not ended yet (all instances: read from the database); absent when unknown. */
  activeBans?: number;
  /** Webhook delivery (webhooks.ts). */
  webhooks?: WebhookScrapeState;
  /** Requests answered 503 because a dependency was down, since the process started (dependency-status.ts). */
  refused?: Record<Dependency, number>;
}

/** Reads the runtime for one scrape; `rt` undefined means it could not be opened (database down at start). */
export async function observeRuntime(rt: Runtime | undefined, draining = false): Promise<ScrapeState> {
  if (!rt) return { databaseUp: 0, ready: 0 };
  const [readiness, activeBans, webhooks] = await Promise.all([
    readinessOf(rt, draining),
    withTimeout(rt.apiKeys.countBanned(), DATABASE_CHECK_MS, "ban count").catch(() => undefined),
    observeWebhooks(rt),
  ]);
  const store = readiness.checks.rateLimitStore;
  return {
    limiter: rt.rateLimiter.metrics(),
    keysRead: rt.apiKeys.keysRead(),
    databaseUp: readiness.checks.database.ok ? 1 : 0,
    ready: readiness.status === "ok" ? 1 : 0,
    ...(store
      ? {
          storeUp: {
            store: rt.config.rateLimit.store.kind,
            up: store.ok ? 1 : 0,
            breakerOpen: store.breaker === "closed" ? 0 : 1,
          },
        }
      : {}),
    ...(activeBans === undefined ? {} : { activeBans }),
    webhooks,
    refused: Object.fromEntries(DEPENDENCIES.map((d) => [d, rt.dependencies.refused(d)])) as Record<
      Dependency,
      number
    >,
  };
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
  registerWebhookCollectors(registry, {
    get webhooks() {
      return scrape.state?.webhooks;
    },
  });
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
    name: "petstore_dependency_refused_requests_total",
    help: "Requests this instance answered 503 because a dependency (database) was unreachable, by dependency.",
    labelNames: ["dependency"] as const,
    registers,
    collect() {
      this.reset();
      const refused = scrape.state?.refused;
      if (refused) for (const d of DEPENDENCIES) this.inc({ dependency: d }, refused[d]);
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
  new Counter({
    name: "petstore_api_key_lookups_total",
    help: "API keys this instance read from the database to verify a bearer token (keys its caches did not know, and background refreshes of keys in use).",
    registers,
    collect() {
      this.reset();
      this.inc(scrape.state?.keysRead ?? 0);
    },
  });
  new Gauge({
    name: "petstore_rate_limit_held_refusals",
    help: "Refusals of client addresses over an anonymous budget this instance is holding before it answers them.",
    registers,
    collect() {
      this.set(scrape.state?.limiter?.heldRefusals ?? 0);
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
    name: "petstore_ready",
    help: "1 when this instance answers /readyz with 200 (database reachable, not draining), else 0.",
    registers,
    collect() {
      this.set(scrape.state?.ready ?? 0);
    },
  });
  new Gauge({
    name: "petstore_rate_limit_breaker_open",
    help: "1 while the circuit breaker in front of the rate-limit store is open or probing (checks fail open), else 0.",
    registers,
    collect() {
      this.set(scrape.state?.storeUp?.breakerOpen ?? 0);
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
