/**
 * The rate limiter (PRODUCT.md section 3 "Rate limits"; service interface "Limits").
 *
 * Per API key two fixed windows, a minute and a UTC day (@upstash/ratelimit `fixedWindow`: buckets are
 * `floor(Date.now() / window)`, so the day bucket turns at 00:00 UTC), plus a ban. A check sends three commands
 * at once (ban GET, minute and day `limit`): one store round trip for an admitted request. A denied request
 * then costs one more round trip, the DENY script, which refunds the request's increments of both windows (so a
 * request denied by one window consumes neither budget, and a denied one leaves no trace: each counter equals
 * the admitted requests plus those still in flight) and logs the denial for the ban in the same atomic call.
 * Never over-admits: a request passes only if both windows' counters, after its own increment, are within limit.
 *
 * ephemeralCache is OFF: (a) denials must reach the store to be counted for bans across instances anyway; (b) a
 * banned key is short-circuited locally by the ban cache below, which is what stops abusive clients cheaply;
 * (c) the cache would outlive `resetUsage` done on another instance (a day window blocked until midnight) and
 * would cache denials that are only transient while concurrent requests' refunds are in flight.
 *
 * Ban: more than `ban.threshold` denials within `ban.windowSeconds` (sliding log in the store) bans the key for
 * `ban.baseSeconds * 2^(bans today - 1)`. The ban lives in the store (`<prefix>:ban:<key>`, value = end in ms)
 * and is cached locally until it ends, re-read from the store at most every 5 s so that a lift on another
 * instance applies within 5 s (the revocation bound of PRODUCT.md section 2).
 *
 * Store failures and timeouts (`storeTimeoutMs`) fail open, are counted in `metrics().storeFailures` and
 * logged at most once a minute. Our own timer bounds every store call; the engine's own `timeout` is off (it
 * would answer limit 0 / reset 0).
 *
 * Clocks: window buckets follow `Date.now()` (inside @upstash/ratelimit); `now()` drives ban times, the ban
 * cache, the usage day and `at`/`t=`/Retry-After. Both are the same clock in production.
 */
import { randomUUID } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis as UpstashRedis } from "@upstash/redis";
import { createStore } from "./create-store.ts";
import {
  admitted,
  banned,
  failedOpen,
  type LimitedWindow,
  rateLimited,
  type WindowSpec,
  windowSeconds,
} from "./decisions.ts";
import { DENY, REFUND } from "./scripts.ts";
import { type RateLimitStore, runScript } from "./store.ts";
import { DAY_MS, withTimeout } from "./time.ts";
import type {
  BanInfo,
  KeyLimits,
  RateLimitConfig,
  RateLimitDecision,
  RateLimiter,
  RateLimitLogger,
  RateLimitMetrics,
  UsageRow,
  WindowState,
} from "./types.ts";
import { UsageRecorder } from "./usage.ts";

/** Options of `createRateLimiter`. */
export interface RateLimiterOptions {
  config: RateLimitConfig;
  /** pino-compatible; store failures are logged at most once a minute. */
  logger: RateLimitLogger;
  /** Called once (by the instance that issued it) per ban, to persist `bannedUntil` and audit it. */
  onBan?: (keyId: string, until: Date, info: BanInfo) => void | Promise<void>;
  /** Writes usage increments to ApiKeyUsage; called every `flushIntervalMs` and on `close()`. */
  flushUsage?: (rows: UsageRow[]) => Promise<void>;
  /** Clock in Unix ms (default `Date.now`). */
  now?: () => number;
  /** Usage flush period in ms (default 5 000). */
  flushIntervalMs?: number;
  /** Length of the "minute" window in ms (default 60 000); tests shorten it to cross a window boundary. */
  minuteWindowMs?: number;
  /** Use this store instead of building one from `config.store` (it is then not closed by `close()`). */
  store?: RateLimitStore;
}

const BAN_RECHECK_MS = 5_000;
const LOG_EVERY_MS = 60_000;

interface Hit {
  spec: WindowSpec;
  limit: number;
  success: boolean;
  remaining: number;
  resetMs: number;
  /** The counter key @upstash/ratelimit incremented: `<prefix>:<identifier>:<bucket>`. */
  key: string;
}

/**
 * Creates a rate limiter from configuration (`Config["rateLimit"]`); with `config.enabled` false one that admits
 * everything and produces no headers (usage is still counted).
 * @returns a `RateLimiter`; call `close()` on shutdown.
 */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const { config, logger } = opts;
  const now = opts.now ?? Date.now;
  const timeoutMs = config.storeTimeoutMs;
  const stats: RateLimitMetrics = {
    checks: 0,
    admitted: 0,
    denied: 0,
    banned: 0,
    storeFailures: 0,
    failOpen: 0,
    bans: 0,
    flushFailures: 0,
  };
  const usage = new UsageRecorder({
    flush: opts.flushUsage,
    intervalMs: opts.flushIntervalMs ?? 5_000,
    logger,
    now,
    onFlushFailure: () => {
      stats.flushFailures++;
    },
  });
  if (!config.enabled) return disabledLimiter(config, usage, stats, now);

  let lastLogAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  const logFailure = (op: string, err: unknown) => {
    const t = now();
    if (t - lastLogAt < LOG_EVERY_MS) {
      suppressed++;
      return;
    }
    logger.warn(
      { err, op, store: config.store.kind, suppressedSinceLastLog: suppressed },
      "rate-limit store failed; letting requests through",
    );
    lastLogAt = t;
    suppressed = 0;
  };
  const failed = (op: string, err: unknown) => {
    stats.storeFailures++;
    logFailure(op, err);
  };

  const ownsStore = !opts.store;
  const store =
    opts.store ?? createStore(config.store, { timeoutMs, onError: (err) => logFailure("connect", err) });
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
  const ANON: WindowSpec = { name: "minute", ms: minuteMs, prefix: `${p}:rl:ip` };
  const banKey = (keyId: string) => `${p}:ban:${keyId}`;
  const denialKey = (keyId: string) => `${p}:denials:${keyId}`;
  const banCountKey = (keyId: string, at: number) => `${p}:bans:${keyId}:${Math.floor(at / DAY_MS)}`;

  // One engine per (window, limit): @upstash/ratelimit fixes the limit per instance; keys do not depend on it.
  const engines = new Map<string, Ratelimit>();
  const engine = (spec: WindowSpec, limit: number): Ratelimit => {
    const id = `${spec.prefix}|${limit}`;
    let e = engines.get(id);
    if (!e) {
      if (engines.size >= 1_000) engines.clear();
      e = new Ratelimit({
        redis: store as unknown as UpstashRedis,
        limiter: Ratelimit.fixedWindow(limit, `${spec.ms} ms`),
        prefix: spec.prefix,
        ephemeralCache: false,
        analytics: false,
        timeout: 0,
        enableTelemetry: false,
      });
      engines.set(id, e);
    }
    return e;
  };

  const hit = async (spec: WindowSpec, limit: number, identifier: string): Promise<Hit> => {
    const r = await engine(spec, limit).limit(identifier);
    r.pending.catch(() => {});
    if (r.reason === "timeout" || r.reset === 0) throw new Error("rate-limit engine timed out");
    const bucket = Math.round(r.reset / spec.ms) - 1;
    return {
      spec,
      limit,
      success: r.success,
      remaining: r.remaining,
      resetMs: r.reset,
      key: `${spec.prefix}:${identifier}:${bucket}`,
    };
  };

  /** Window state after the check; a refunded hit gives its slot back. */
  const state = (h: Hit, refunded: boolean): WindowState => ({
    name: h.spec.name,
    limit: h.limit,
    remaining: refunded && h.success ? Math.min(h.limit, h.remaining + 1) : h.remaining,
    resetMs: h.resetMs,
    windowSeconds: windowSeconds(h.spec),
  });

  /** Runs a store call under the timeout; on failure counts and logs it and resolves undefined. */
  const guarded = async <T>(op: string, call: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await withTimeout(call(), timeoutMs);
    } catch (err) {
      failed(op, err);
      return undefined;
    }
  };

  // Local ban cache: keyId -> ban end (ms) and when the store was last read.
  const bans = new Map<string, { until: number; checkedAt: number }>();
  const cacheBan = (keyId: string, until: number, at: number) => {
    if (bans.size >= 10_000) for (const [k, b] of bans) if (b.until <= at) bans.delete(k);
    bans.set(keyId, { until, checkedAt: at });
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

  const deniedBy = (decision: RateLimitDecision, keyId?: string) => {
    stats.denied++;
    if (decision.code === "key_banned") stats.banned++;
    if (keyId !== undefined) usage.add(keyId, "rateLimited");
    return decision;
  };

  async function checkKey({ keyId, perMinute, perDay }: KeyLimits): Promise<RateLimitDecision> {
    stats.checks++;
    const at = now();
    const limits: LimitedWindow[] = [
      [MINUTE, perMinute],
      [DAY, perDay],
    ];
    const cached = bans.get(keyId);
    if (cached && cached.until <= at) bans.delete(keyId);
    else if (cached && at - cached.checkedAt < BAN_RECHECK_MS) {
      return deniedBy(banned(at, cached.until, limits), keyId);
    }

    let results: [string | null, Hit, Hit];
    try {
      results = await withTimeout(
        Promise.all([store.get(banKey(keyId)), hit(MINUTE, perMinute, keyId), hit(DAY, perDay, keyId)]),
        timeoutMs,
      );
    } catch (err) {
      failed("check", err);
      stats.failOpen++;
      usage.add(keyId, "requests");
      return failedOpen(at, limits);
    }
    const [banValue, minute, day] = results;

    const bannedUntil = Number(banValue ?? 0);
    if (bannedUntil > at) {
      cacheBan(keyId, bannedUntil, at);
      await guarded("refund", () => runScript(store, REFUND, [minute.key, day.key], []));
      return deniedBy(banned(at, bannedUntil, limits), keyId);
    }
    bans.delete(keyId);

    if (minute.success && day.success) {
      stats.admitted++;
      usage.add(keyId, "requests");
      return admitted(at, [state(minute, false), state(day, false)]);
    }

    const { threshold, windowSeconds: banWindowS, baseSeconds } = config.ban;
    const reply = await guarded("deny", () =>
      runScript(
        store,
        DENY,
        [banKey(keyId), denialKey(keyId), banCountKey(keyId, at), minute.key, day.key],
        [
          at,
          banWindowS * 1000,
          threshold,
          baseSeconds * 1000,
          `${at}:${randomUUID()}`,
          DAY_MS - (at % DAY_MS) + 60_000,
        ],
      ),
    );
    const refunded = reply !== undefined;
    if (Array.isArray(reply)) {
      const [end = 0, banNumber = 0] = reply.map(Number);
      if (end > at) {
        cacheBan(keyId, end, at);
        if (banNumber > 0) {
          stats.bans++;
          usage.add(keyId, "bans");
          notifyBan(keyId, end, { banNumber, durationSeconds: Math.round((end - at) / 1000) });
        }
        return deniedBy(banned(at, end, limits), keyId);
      }
    }
    const windows = [state(minute, refunded), state(day, refunded)];
    const denying = windows.filter((_, i) => !(i === 0 ? minute : day).success);
    return deniedBy(rateLimited(at, windows, denying), keyId);
  }

  async function checkAnonymous(ip: string): Promise<RateLimitDecision> {
    stats.checks++;
    const at = now();
    const limit = config.anonymousPerMinute;
    let h: Hit;
    try {
      h = await withTimeout(hit(ANON, limit, ip), timeoutMs);
    } catch (err) {
      failed("check", err);
      stats.failOpen++;
      return failedOpen(at, [[ANON, limit]]);
    }
    const windows = [state(h, false)];
    if (!h.success) return deniedBy(rateLimited(at, windows, windows));
    stats.admitted++;
    return admitted(at, windows);
  }

  let closing: Promise<void> | undefined;

  return {
    checkKey,
    checkAnonymous,
    recordDeprecatedCall: (keyId) => usage.add(keyId, "deprecatedGet"),
    async isBanned(keyId) {
      const value = await withTimeout(store.get(banKey(keyId)), timeoutMs);
      const at = now();
      const until = Number(value ?? 0);
      if (until > at) {
        cacheBan(keyId, until, at);
        return new Date(until);
      }
      bans.delete(keyId);
      return null;
    },
    async unban(keyId) {
      bans.delete(keyId);
      await withTimeout(store.del(banKey(keyId), denialKey(keyId)), timeoutMs);
    },
    async resetUsage(keyId) {
      const t = Date.now(); // the engine's clock decides the current buckets
      await withTimeout(
        store.del(
          `${MINUTE.prefix}:${keyId}:${Math.floor(t / MINUTE.ms)}`,
          `${DAY.prefix}:${keyId}:${Math.floor(t / DAY.ms)}`,
        ),
        timeoutMs,
      );
    },
    usageToday: (keyId) => usage.today(keyId),
    flushUsage: () => usage.flush(),
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
      return { store: store.kind, ok };
    },
    metrics: () => ({ ...stats }),
    close() {
      closing ??= (async () => {
        await usage.close();
        if (ownsStore) await store.close().catch(() => {});
      })();
      return closing;
    },
  };
}

/** Limiter for `enabled: false`: admits everything, no headers; still counts usage. */
function disabledLimiter(
  config: RateLimitConfig,
  usage: UsageRecorder,
  stats: RateLimitMetrics,
  now: () => number,
): RateLimiter {
  const open = (): RateLimitDecision => ({ allowed: true, at: now(), windows: [] });
  return {
    async checkKey({ keyId }) {
      stats.checks++;
      stats.admitted++;
      usage.add(keyId, "requests");
      return open();
    },
    async checkAnonymous() {
      stats.checks++;
      stats.admitted++;
      return open();
    },
    recordDeprecatedCall: (keyId) => usage.add(keyId, "deprecatedGet"),
    isBanned: async () => null,
    unban: async () => {},
    resetUsage: async () => {},
    usageToday: (keyId) => usage.today(keyId),
    flushUsage: () => usage.flush(),
    ready: async () => true,
    health: async () => ({ store: config.store.kind, ok: true }),
    metrics: () => ({ ...stats }),
    close: () => usage.close(),
  };
}
