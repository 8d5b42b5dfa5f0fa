/**
 * The rate limiter: `createRateLimiter` builds it, and its store, from configuration, and holds the anonymous
 * checks (per client network), the held refusals, the admin operations on bans and usage, health and shutdown; the
 * keyed checks are in key-checks.ts. Promises: docs/contract.md section 3 "Rate limits"; mechanics:
 * docs/architecture.md "Rate limiter".
 */
import { setTimeout as delay } from "node:timers/promises";
import type { RateLimitStoreConfig } from "@petstore/config";
import { type ClientPrefixes, clientNetwork, DEFAULT_CLIENT_PREFIXES } from "../client-network.ts";
import { DAY_MS } from "../utc-day.ts";
import { BanCache, createKeyChecks } from "./key-checks.ts";
import { createMemoryStore } from "./memory-store.ts";
import { createRedisStore } from "./redis-store.ts";
import { type RateLimitStore, REFUND, runScript } from "./store.ts";
import { createStoreGuard, withTimeout } from "./store-guard.ts";
import type {
  AnonymousScope,
  BanInfo,
  RateLimitConfig,
  RateLimitDecision,
  RateLimiter,
  RateLimitLogger,
  RateLimitMetrics,
} from "./types.ts";
import { createUpstashStore } from "./upstash-store.ts";
import {
  admitted,
  counterKey,
  failedOpen,
  fixedWindows,
  type Hit,
  rateLimited,
  specEnd,
  type WindowSpec,
  windowState,
} from "./windows.ts";

/** Refusals held at once per instance, bounding the memory a flood can hold (a few KB each). */
const MAX_HELD_REFUSALS = 2_000;

/** Options of `createRateLimiter`. */
export interface RateLimiterOptions {
  config: RateLimitConfig;
  /** pino-compatible; store failures are logged at most once a minute. */
  logger: RateLimitLogger;
  /** Called once (by the instance that issued it) per ban, to persist `bannedUntil` and audit it. */
  onBan?: (keyId: string, until: Date, info: BanInfo) => void | Promise<void>;
  /**
   * Clock in Unix ms (default `Date.now`) of ban times, the ban cache and a decision's `at`; window buckets follow
   * the engine's `Date.now()`.
   */
  now?: () => number;
  /** Length of the "minute" window in ms (default 60 000); tests shorten it to cross a window boundary. */
  minuteWindowMs?: number;
  /** Use this store instead of building one from `config.store` (it is then not closed by `close()`). */
  store?: RateLimitStore;
  /** What makes one client of the anonymous budgets (`Config["clientPrefixes"]`; default IPv4 /32, IPv6 /64). */
  clientPrefixes?: ClientPrefixes;
}

/**
 * Builds the store for `config`: Redis over TCP, Upstash over REST, or in-process memory.
 * @param opts.timeoutMs connect timeout of the TCP client in ms.
 * @param opts.onError receives background connection errors of the TCP client.
 */
export function createStore(
  config: RateLimitStoreConfig,
  opts: { timeoutMs: number; onError?: (err: Error) => void },
): RateLimitStore {
  switch (config.kind) {
    case "redis":
      return createRedisStore(config.url, opts);
    case "upstash":
      return createUpstashStore(config.url, config.token);
    case "memory":
      return createMemoryStore();
  }
}

/**
 * Creates a rate limiter from configuration (`Config["rateLimit"]`); with `config.enabled` false one that admits
 * everything, touches no store and produces no headers. Usage is counted by core's analytics recorder, not here.
 * @returns a `RateLimiter`; call `close()` on shutdown.
 */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const { config, logger } = opts;
  const now = opts.now ?? Date.now;
  const prefixes = opts.clientPrefixes ?? DEFAULT_CLIENT_PREFIXES;
  const timeoutMs = config.storeTimeoutMs;
  const stats: RateLimitMetrics = {
    checks: 0,
    admitted: 0,
    denied: 0,
    banned: 0,
    storeFailures: 0,
    failOpen: 0,
    bans: 0,
    heldRefusals: 0,
  };
  if (!config.enabled) return disabledLimiter(config, stats, now);

  const ownsStore = !opts.store;
  const store =
    opts.store ?? createStore(config.store, { timeoutMs, onError: (err) => guard.log("connect", err) });
  const guard = createStoreGuard({ store, config, logger, stats, now });
  const refusals = createRefusalHold(config.anonymousRefusalDelayMs, now);
  if (store.kind === "memory") {
    logger.warn(
      { store: "memory" },
      "rate limits use the in-process store: they hold for this instance only",
    );
  }

  const p = config.prefix;
  const minuteMs = opts.minuteWindowMs ?? 60_000;
  const MINUTE: WindowSpec = { name: "minute", ms: minuteMs, prefix: `${p}:rl:min` };
  const DAY: WindowSpec = { name: "day", ms: DAY_MS, prefix: `${p}:rl:day` };
  const MONTH: WindowSpec = { name: "month", ms: 31 * DAY_MS, prefix: `${p}:rl:month`, calendarMonth: true };
  const ANON: Record<AnonymousScope, WindowSpec> = {
    api: { name: "minute", ms: minuteMs, prefix: `${p}:rl:ip`, refuseFromMemory: true },
    dashboard: { name: "minute", ms: minuteMs, prefix: `${p}:rl:dash`, refuseFromMemory: true },
    metrics: { name: "minute", ms: minuteMs, prefix: `${p}:rl:metrics`, refuseFromMemory: true },
  };
  const anonymousLimit: Record<AnonymousScope, number> = {
    api: config.anonymousPerMinute,
    dashboard: config.dashboardAnonymousPerMinute,
    metrics: config.metricsScrapesPerMinute,
  };
  const bans = new BanCache();
  const { hit } = fixedWindows(store);
  const keys = {
    ban: (keyId: string) => `${p}:ban:${keyId}`,
    denials: (keyId: string) => `${p}:denials:${keyId}`,
    banCount: (keyId: string, at: number) => `${p}:bans:${keyId}:${Math.floor(at / DAY_MS)}`,
  };

  const notifyBan = (keyId: string, until: number, info: BanInfo) => {
    if (!opts.onBan) return;
    try {
      Promise.resolve(opts.onBan(keyId, new Date(until), info)).catch((err) =>
        logger.error({ err, keyId }, "rate-limit onBan callback failed"),
      );
    } catch (err) {
      logger.error({ err, keyId }, "rate-limit onBan callback failed");
    }
  };

  const deniedBy = (decision: RateLimitDecision) => {
    stats.denied++;
    if (decision.code === "key_banned") stats.banned++;
    return decision;
  };

  const checkKey = createKeyChecks({
    store,
    prefix: `${p}:rl`,
    windows: { minute: MINUTE, day: DAY, month: MONTH },
    ban: config.ban,
    keys,
    bans,
    guard,
    stats,
    now,
    deniedBy,
    notifyBan,
  });

  async function checkAnonymous(ip: string, scope: AnonymousScope = "api"): Promise<RateLimitDecision> {
    stats.checks++;
    const at = now();
    const spec = ANON[scope];
    const limit = anonymousLimit[scope];
    let h: Hit;
    try {
      h = await guard.bounded(() => hit(spec, limit, clientNetwork(ip, prefixes)));
    } catch (err) {
      guard.failed("check", err);
      stats.failOpen++;
      return failedOpen(at, [[spec, limit]]);
    }
    const windows = [windowState(h)];
    if (!h.success) return deniedBy(rateLimited(at, windows, windows));
    stats.admitted++;
    return admitted(at, windows);
  }

  let closing: Promise<void> | undefined;

  return {
    checkKey,
    checkAnonymous,
    async refundAnonymous(ip, decision) {
      const window = decision.windows[0];
      if (!decision.allowed || decision.degraded || !window) return;
      stats.admitted--;
      const bucket = Math.round(window.resetMs / ANON.api.ms) - 1;
      await guard.guarded("refund", () =>
        runScript(store, REFUND, [`${ANON.api.prefix}:${clientNetwork(ip, prefixes)}:${bucket}`], []),
      );
    },
    async isBanned(keyId) {
      const value = await guard.bounded(() => store.get(keys.ban(keyId)));
      const at = now();
      const until = Number(value ?? 0);
      if (until > at) {
        bans.set(keyId, until, at);
        return new Date(until);
      }
      bans.delete(keyId);
      return null;
    },
    async unban(keyId) {
      bans.delete(keyId);
      await guard.bounded(() => store.del(keys.ban(keyId), keys.denials(keyId)));
    },
    async monthQuota(keyId, perMonth) {
      if (!perMonth) return null;
      const t = Date.now(); // the engine's clock decides the current buckets
      const used = await guard.bounded(() => store.get(counterKey(MONTH, keyId, t)));
      return { limit: perMonth, used: Number(used ?? 0), resetMs: specEnd(MONTH, t) };
    },
    async resetUsage(keyId) {
      const t = Date.now(); // the engine's clock decides the current buckets
      await guard.bounded(() => store.del(counterKey(MINUTE, keyId, t), counterKey(DAY, keyId, t)));
    },
    ready: () =>
      withTimeout(store.ready(), timeoutMs).then(
        () => true,
        () => false,
      ),
    async health() {
      const ok = await withTimeout(store.ping(), timeoutMs).then(
        () => true,
        () => false,
      );
      return { store: store.kind, ok, breaker: guard.state() };
    },
    holdRefusal: (decision) => refusals.hold(decision),
    metrics: () => ({ ...stats, heldRefusals: refusals.held() }),
    close() {
      guard.close();
      closing ??= (async () => {
        if (ownsStore) await store.close().catch(() => {});
      })();
      return closing;
    },
  };
}

/**
 * Held refusals: `hold(decision)` resolves once the refusal `decision` of an anonymous check may be answered,
 * after `delayMs` (never past the end of the refusing window); at once for an admitted decision, with `delayMs` 0,
 * or when `MAX_HELD_REFUSALS` are held already. `clock` in Unix ms.
 */
function createRefusalHold(
  delayMs: number,
  clock: () => number,
): { hold(decision: RateLimitDecision): Promise<void>; held(): number } {
  const atOnce = Promise.resolve();
  let held = 0;
  return {
    hold(decision) {
      if (decision.allowed || delayMs <= 0 || held >= MAX_HELD_REFUSALS) return atOnce;
      const untilReset = (decision.reported?.resetMs ?? Number.POSITIVE_INFINITY) - clock();
      const ms = Math.min(delayMs, untilReset);
      if (!(ms > 0)) return atOnce;
      held++;
      return delay(ms).finally(() => {
        held--;
      });
    },
    held: () => held,
  };
}

/** The limiter with `config.enabled` false: admits every request without touching a store; `stats` are the caller's. */
function disabledLimiter(config: RateLimitConfig, stats: RateLimitMetrics, now: () => number): RateLimiter {
  const open = (): RateLimitDecision => ({ allowed: true, at: now(), windows: [] });
  return {
    async checkKey() {
      stats.checks++;
      stats.admitted++;
      return open();
    },
    async checkAnonymous() {
      stats.checks++;
      stats.admitted++;
      return open();
    },
    refundAnonymous: async () => {},
    holdRefusal: async () => {},
    isBanned: async () => null,
    unban: async () => {},
    monthQuota: async () => null,
    resetUsage: async () => {},
    ready: async () => true,
    health: async () => ({ store: config.store.kind, ok: true, breaker: "closed" as const }),
    metrics: () => ({ ...stats }),
    close: async () => {},
  };
}
