/**
 * The rate limiter (docs/contract.md section 3 "Rate limits"; docs/interface.md "Limits").
 *
 * Per API key two fixed windows, a minute and a UTC day, plus a ban, counted by the keyed checks (key-checks.ts:
 * one store round trip for an admitted request, shared by a key's checks of one event-loop turn when they fit).
 * Nothing that decides is cached locally except what the store last said of a key's ban (ban-cache.ts): denials
 * must reach the store to be counted for bans across instances, and a `resetUsage` on another instance must apply
 * at once. (The room a key had left, headroom.ts, only decides whether its checks are counted together.)
 *
 * Ban: more than `ban.threshold` denials within `ban.windowSeconds` (sliding log in the store) bans the key for
 * `ban.baseSeconds * 2^(bans today - 1)`. The ban lives in the store (`<prefix>:ban:<key>`, value = end in ms)
 * and is cached locally until it ends, re-read from the store at least every 5 s; that a key is not banned is
 * cached for 1 s (ban-cache.ts says why that is safe).
 *
 * Store failures and timeouts (`storeTimeoutMs`) fail open, are counted in `metrics().storeFailures` and
 * logged at most once a minute (store-failures.ts). A circuit breaker (breaker.ts) sits in front of the store:
 * after a few consecutive failures every check fails open at once for a cool-down instead of waiting for the
 * timeout, the store's connection is replaced (a silent one is never answered again), and one probe decides
 * when to use the store again.
 *
 * Requests without a valid key count per client network (`checkAnonymous`; client-network.ts: the address,
 * or by default the /64 of an IPv6 one), in the API's bucket, the dashboard's or /metrics' (`scope`); once an
 * network's bucket is used up, this instance refuses it from memory until the window ends, so a flood from one
 * network costs no store round trip after its first denial, and its refusals
 * are answered only after `anonymousRefusalDelayMs` (`holdRefusal`, refusal-hold.ts). A look-up of a key the caches do not know is counted in the API's bucket first, and
 * given back with `refundAnonymous` when the key proves valid or cannot be checked: only failed
 * authentications use up a client address's budget, and once it is used up, unknown keys from that address
 * cost no database look-up.
 *
 * Clocks: window buckets follow `Date.now()` (inside @upstash/ratelimit); `now()` drives ban times, the ban
 * cache, the usage day and `at`/`t=`/Retry-After. Both are the same clock in production.
 */
import { type ClientPrefixes, clientNetwork, DEFAULT_CLIENT_PREFIXES } from "../client-network.ts";
import { BanCache } from "./ban-cache.ts";
import { createStoreBreaker } from "./breaker.ts";
import { createStore } from "./create-store.ts";
import { admitted, failedOpen, rateLimited, type WindowSpec } from "./decisions.ts";
import { disabledLimiter } from "./disabled.ts";
import { createKeyChecks } from "./key-checks.ts";
import { createRefusalHold } from "./refusal-hold.ts";
import { REFUND } from "./scripts.ts";
import { type RateLimitStore, runScript } from "./store.ts";
import { storeFailures } from "./store-failures.ts";
import { DAY_MS, withTimeout } from "./time.ts";
import type {
  AnonymousScope,
  BanInfo,
  RateLimitConfig,
  RateLimitDecision,
  RateLimiter,
  RateLimitLogger,
  RateLimitMetrics,
} from "./types.ts";
import { counterKey, fixedWindows, type Hit, windowState } from "./windows.ts";

/** Options of `createRateLimiter`. */
export interface RateLimiterOptions {
  config: RateLimitConfig;
  /** pino-compatible; store failures are logged at most once a minute. */
  logger: RateLimitLogger;
  /** Called once (by the instance that issued it) per ban, to persist `bannedUntil` and audit it. */
  onBan?: (keyId: string, until: Date, info: BanInfo) => void | Promise<void>;
  /** Clock in Unix ms (default `Date.now`). */
  now?: () => number;
  /** Length of the "minute" window in ms (default 60 000); tests shorten it to cross a window boundary. */
  minuteWindowMs?: number;
  /** Use this store instead of building one from `config.store` (it is then not closed by `close()`). */
  store?: RateLimitStore;
  /** What makes one client of the anonymous budgets (`Config["clientPrefixes"]`; default IPv4 /32, IPv6 /64). */
  clientPrefixes?: ClientPrefixes;
}

/**
 * Creates a rate limiter from configuration (`Config["rateLimit"]`); with `config.enabled` false one that admits
 * everything and produces no headers. Usage is counted by core's analytics recorder, not here.
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
    opts.store ?? createStore(config.store, { timeoutMs, onError: (err) => failures.log("connect", err) });
  let closed = false;
  let probeTimer: NodeJS.Timeout | undefined;
  const breaker = createStoreBreaker({
    ...config.breaker,
    onOpen: () => {
      logger.warn(
        { store: config.store.kind, cooldownMs: config.breaker.cooldownMs },
        "rate-limit store keeps failing; checks fail open at once until a probe succeeds",
      );
      store.reconnect?.();
      // The breaker's probe is normally the next request after the cool-down; this one closes it even when no
      // request comes (a failed probe opens it again, which schedules the next one).
      clearTimeout(probeTimer);
      probeTimer = setTimeout(() => {
        if (!closed) void breaker.run(() => withTimeout(store.ping(), timeoutMs)).catch(() => undefined);
      }, config.breaker.cooldownMs + 10);
      probeTimer.unref();
    },
  });
  const refusals = createRefusalHold(config.anonymousRefusalDelayMs, now);
  const failures = storeFailures({ logger, store: config.store.kind, stats, now, timeoutMs, breaker });
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
  /** Bounded by the timeout and the breaker: every store round trip of the request path goes through here. */
  const bounded = <T>(call: () => Promise<T>): Promise<T> =>
    breaker.run(() => withTimeout(call(), timeoutMs));
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
    hit,
    windows: { minute: MINUTE, day: DAY },
    ban: config.ban,
    keys,
    bans,
    failures,
    stats,
    bounded,
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
      h = await bounded(() => hit(spec, limit, clientNetwork(ip, prefixes)));
    } catch (err) {
      failures.failed("check", err);
      stats.failOpen++;
      return failedOpen(at, [[spec, limit]]);
    }
    const windows = [windowState(h, false)];
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
      await failures.guarded("refund", () =>
        runScript(store, REFUND, [`${ANON.api.prefix}:${clientNetwork(ip, prefixes)}:${bucket}`], []),
      );
    },
    async isBanned(keyId) {
      const value = await bounded(() => store.get(keys.ban(keyId)));
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
      await bounded(() => store.del(keys.ban(keyId), keys.denials(keyId)));
    },
    async resetUsage(keyId) {
      const t = Date.now(); // the engine's clock decides the current buckets
      await bounded(() => store.del(counterKey(MINUTE, keyId, t), counterKey(DAY, keyId, t)));
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
      return { store: store.kind, ok, breaker: breaker.state() };
    },
    holdRefusal: (decision) => refusals.hold(decision),
    metrics: () => ({ ...stats, heldRefusals: refusals.held() }),
    close() {
      closed = true;
      clearTimeout(probeTimer);
      closing ??= (async () => {
        if (ownsStore) await store.close().catch(() => {});
      })();
      return closing;
    },
  };
}
