/**
 * The rate limiter (docs/contract.md section 3 "Rate limits"; docs/interface.md "Limits").
 *
 * Per API key two fixed windows, a minute and a UTC day (@upstash/ratelimit `fixedWindow`, windows.ts: buckets
 * are `floor(Date.now() / window)`, so the day bucket turns at 00:00 UTC), plus a ban. A check sends the minute
 * and day `limit` at once, with a ban GET when the ban cache has not read the key's ban within the last second,
 * and the store pipelines them: one store round trip for an admitted request. A denied request then costs one more round trip, the DENY script, which refunds the request's
 * increments of both windows (so a request denied by one window consumes neither budget, and a denied one leaves
 * no trace: each counter equals the admitted requests plus those still in flight) and logs the denial for the ban
 * in the same atomic call. A request that finds a ban running has its increments taken back (REFUND script).
 * Never over-admits: a request passes only if both windows' counters, after its own increment, are within limit.
 *
 * Checks of one key made in the same event-loop turn (DataLoader, as the hot reads) are counted together, in
 * arrival order, by one `limit` per window with the engine's `rate` (docs/architecture.md: nothing on the hot path
 * blocks on I/O that can be batched), when the room the store last reported fits them all (headroom.ts): the
 * i-th of n requests then gets exactly the decision and remaining counts it would have got alone after the i - 1
 * before it. A group that does not fit after all, because another instance used the room meanwhile, is refunded
 * at once and its requests are counted one by one; so are the checks of a key near a limit or new in its windows.
 * Nothing is cached locally except what the store last said of a key's ban (ban-cache.ts): denials must reach
 * the store to be counted for bans across instances, and a `resetUsage` on another instance must apply at once.
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
 * Requests without a valid key count per client address (`checkAnonymous`), in the API's bucket or the
 * dashboard's (`scope`); once an address's bucket is used up, this instance refuses it from memory until the
 * window ends, so a flood from one address costs no store round trip after its first denial, and its refusals
 * are answered only after `anonymousRefusalDelayMs` (`holdRefusal`, refusal-hold.ts). A look-up of a key the caches do not know is counted in the API's bucket first, and
 * given back with `refundAnonymous` when the key proves valid or cannot be checked: only failed
 * authentications use up a client address's budget, and once it is used up, unknown keys from that address
 * cost no database look-up.
 *
 * Clocks: window buckets follow `Date.now()` (inside @upstash/ratelimit); `now()` drives ban times, the ban
 * cache, the usage day and `at`/`t=`/Retry-After. Both are the same clock in production.
 */
import { randomUUID } from "node:crypto";
import DataLoader from "dataloader";
import { endOfTurn } from "../end-of-turn.ts";
import { BanCache, type KnownBan } from "./ban-cache.ts";
import { createStoreBreaker } from "./breaker.ts";
import { createStore } from "./create-store.ts";
import {
  admitted,
  banned,
  failedOpen,
  type LimitedWindow,
  rateLimited,
  type WindowSpec,
} from "./decisions.ts";
import { disabledLimiter } from "./disabled.ts";
import { Headroom } from "./headroom.ts";
import { createRefusalHold } from "./refusal-hold.ts";
import { DENY, REFUND } from "./scripts.ts";
import { type RateLimitStore, runScript } from "./store.ts";
import { storeFailures } from "./store-failures.ts";
import { DAY_MS, withTimeout } from "./time.ts";
import type {
  AnonymousScope,
  BanInfo,
  KeyLimits,
  RateLimitConfig,
  RateLimitDecision,
  RateLimiter,
  RateLimitLogger,
  RateLimitMetrics,
} from "./types.ts";
import { counterKey, fixedWindows, type Hit, windowState } from "./windows.ts";

/** One key check waiting for its turn's store round trip: the key's limits, the clock at the check, its ban as cached. */
interface KeyCheck {
  limits: KeyLimits;
  at: number;
  known: Exclude<KnownBan, number>;
}

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
}

/**
 * Creates a rate limiter from configuration (`Config["rateLimit"]`); with `config.enabled` false one that admits
 * everything and produces no headers. Usage is counted by core's analytics recorder, not here.
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
  const banKey = (keyId: string) => `${p}:ban:${keyId}`;
  const denialKey = (keyId: string) => `${p}:denials:${keyId}`;
  const banCountKey = (keyId: string, at: number) => `${p}:bans:${keyId}:${Math.floor(at / DAY_MS)}`;
  const bans = new BanCache();
  const room = new Headroom();
  const { hit } = fixedWindows(store);

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

  /** The DENY round trip for a request a window denied: refund, log the denial, maybe ban. */
  async function deny(keyId: string, at: number, minute: Hit, day: Hit, limits: LimitedWindow[]) {
    const { threshold, windowSeconds: banWindowS, baseSeconds } = config.ban;
    const reply = await failures.guarded("deny", () =>
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
        bans.set(keyId, end, at);
        if (banNumber > 0) {
          stats.bans++;
          notifyBan(keyId, end, { banNumber, durationSeconds: Math.round((end - at) / 1000) });
        }
        return deniedBy(banned(at, end, limits));
      }
    }
    const windows = [windowState(minute, refunded), windowState(day, refunded)];
    const denying = windows.filter((_, i) => !(i === 0 ? minute : day).success);
    return deniedBy(rateLimited(at, windows, denying));
  }

  /** A key's room is known per set of limits: a plan change starts from nothing known. */
  const roomOf = ({ keyId, perMinute, perDay }: KeyLimits) => `${keyId}|${perMinute}|${perDay}`;
  const windowsOf = ({ perMinute, perDay }: KeyLimits): LimitedWindow[] => [
    [MINUTE, perMinute],
    [DAY, perDay],
  ];

  /**
   * Counts the requests of `group` (checks of one key with the same limits, in arrival order) in one store round
   * trip and decides each; a group of more than one that does not fit is refunded and counted one by one.
   */
  async function countTogether(group: KeyCheck[]): Promise<RateLimitDecision[]> {
    const n = group.length;
    const { limits: keyLimits, at } = group[0] as KeyCheck;
    const { keyId, perMinute, perDay } = keyLimits;
    const limits = windowsOf(keyLimits);
    const readBan = group.some((c) => c.known !== "clear");
    let results: [string | null, Hit, Hit];
    try {
      // Started in the same tick: the store sends the commands in one write (one round trip).
      results = await bounded(() =>
        Promise.all([
          readBan ? store.get(banKey(keyId)) : null,
          hit(MINUTE, perMinute, keyId, n),
          hit(DAY, perDay, keyId, n),
        ]),
      );
    } catch (err) {
      failures.failed("check", err);
      stats.failOpen += n;
      return group.map((c) => failedOpen(c.at, limits));
    }
    const [banValue, minute, day] = results;
    const bannedUntil = Number(banValue ?? 0);
    if (bannedUntil > at) {
      bans.set(keyId, bannedUntil, at);
      room.forget(roomOf(keyLimits));
      await failures.guarded("refund", () => runScript(store, REFUND, [minute.key, day.key], [n]));
      return group.map((c) => deniedBy(banned(c.at, bannedUntil, limits)));
    }
    if (readBan) bans.set(keyId, 0, at);
    if (minute.success && day.success) {
      stats.admitted += n;
      room.record(
        roomOf(keyLimits),
        Math.min(minute.remaining, day.remaining),
        Math.min(minute.resetMs, day.resetMs),
      );
      // The i-th of the n counted before the n - 1 - i after it: that many more were left when it was counted.
      return group.map((c, i) =>
        admitted(c.at, [windowState(minute, false, n - 1 - i), windowState(day, false, n - 1 - i)]),
      );
    }
    room.forget(roomOf(keyLimits));
    if (n === 1) return [await deny(keyId, at, minute, day, limits)];
    await failures.guarded("refund", () => runScript(store, REFUND, [minute.key, day.key], [n]));
    return countOneByOne(group.map((c) => ({ ...c, known: "clear" })));
  }

  /** Each check of `group` counted alone (in one write all the same: they start in the same tick). */
  async function countOneByOne(group: KeyCheck[]): Promise<RateLimitDecision[]> {
    const decisions = await Promise.all(group.map((c) => countTogether([c])));
    return decisions.map(([decision]) => decision as RateLimitDecision);
  }

  /** The checks of one event-loop turn, grouped by key (and limits), each group counted as `countTogether` says. */
  const keyChecks = new DataLoader<KeyCheck, RateLimitDecision, KeyCheck>(async (checks) => {
    const groups = new Map<string, KeyCheck[]>();
    for (const c of checks) {
      const group = groups.get(roomOf(c.limits));
      if (group) group.push(c);
      else groups.set(roomOf(c.limits), [c]);
    }
    const decided = new Map<KeyCheck, RateLimitDecision>();
    await Promise.all(
      [...groups].map(async ([id, group]) => {
        const first = group[0] as KeyCheck;
        const together = group.length === 1 || room.take(id, group.length, first.at);
        const decisions = await (together ? countTogether(group) : countOneByOne(group));
        for (const [i, c] of group.entries()) decided.set(c, decisions[i] as RateLimitDecision);
      }),
    );
    return checks.map((c) => decided.get(c) as RateLimitDecision);
  }, endOfTurn);

  async function checkKey(
    keyLimits: KeyLimits,
    options: { storeFailed?: boolean } = {},
  ): Promise<RateLimitDecision> {
    stats.checks++;
    const at = now();
    if (options.storeFailed) {
      stats.failOpen++;
      return failedOpen(at, windowsOf(keyLimits));
    }
    const known = bans.known(keyLimits.keyId, at);
    if (typeof known === "number") return deniedBy(banned(at, known, windowsOf(keyLimits)));
    return keyChecks.load({ limits: keyLimits, at, known });
  }

  async function checkAnonymous(ip: string, scope: AnonymousScope = "api"): Promise<RateLimitDecision> {
    stats.checks++;
    const at = now();
    const spec = ANON[scope];
    const limit = anonymousLimit[scope];
    let h: Hit;
    try {
      h = await bounded(() => hit(spec, limit, ip));
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
        runScript(store, REFUND, [`${ANON.api.prefix}:${ip}:${bucket}`], []),
      );
    },
    async isBanned(keyId) {
      const value = await bounded(() => store.get(banKey(keyId)));
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
      await bounded(() => store.del(banKey(keyId), denialKey(keyId)));
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
