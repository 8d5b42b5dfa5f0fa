/**
 * The rate limiter's checks of API keys: one store script per check (KEY_CHECK in store.ts, run as
 * @upstash/ratelimit's algorithm), the local cache of running bans, and the counting together of a key's checks
 * of one event-loop turn. Promises: docs/contract.md section 3 "Rate limits"; mechanics: docs/architecture.md
 * "Rate limiter".
 */
import { randomUUID } from "node:crypto";
import { Ratelimit, type RatelimitConfig } from "@upstash/ratelimit";
import type { Redis as UpstashRedis } from "@upstash/redis";
import DataLoader from "dataloader";
import { LRUCache } from "lru-cache";
import { endOfTurn } from "../end-of-turn.ts";
import { DAY_MS } from "../utc-day.ts";
import { KEY_CHECK, type RateLimitStore, runScript } from "./store.ts";
import type { StoreGuard } from "./store-guard.ts";
import type { BanInfo, KeyLimits, RateLimitConfig, RateLimitDecision, RateLimitMetrics } from "./types.ts";
import {
  admitted,
  banned,
  counterKey,
  failedOpen,
  type LimitedWindow,
  rateLimited,
  specEnd,
  type WindowSpec,
  windowSeconds,
} from "./windows.ts";

/**
 * How long a month's counter outlives the month (ms): it is read by nothing after the month ends, and the margin
 * keeps it through the end of the month on an instance whose clock is behind.
 */
const MONTH_COUNTER_GRACE_MS = DAY_MS;

// ---------------------------------------------------------------------------------------------------------------
// The ban cache
// ---------------------------------------------------------------------------------------------------------------

/** A running ban is re-read from the store at least this often (ms), so that an unban elsewhere applies here. */
const RECHECK_MS = 5_000;
/** Keys remembered at most (the least recently used are forgotten first: their ban is read again). */
const MAX_BAN_ENTRIES = 10_000;

/**
 * keyId -> the end of its running ban (Unix ms) and when the store said so. Every check that reaches the store
 * reads the ban in its script; this cache only spares a banned key's requests the round trip.
 */
export class BanCache {
  private readonly bans = new LRUCache<string, { until: number; checkedAt: number }>({
    max: MAX_BAN_ENTRIES,
  });

  /** The end of `keyId`'s ban at `at` (Unix ms) when a store read recent enough says it runs; else undefined. */
  known(keyId: string, at: number): number | undefined {
    const cached = this.bans.get(keyId);
    if (!cached) return undefined;
    if (cached.until <= at || at - cached.checkedAt >= RECHECK_MS) {
      this.bans.delete(keyId);
      return undefined;
    }
    return cached.until;
  }

  /** Records that the store said, at `at`, that `keyId` is banned until `until`. */
  set(keyId: string, until: number, at: number): void {
    this.bans.set(keyId, { until, checkedAt: at });
  }

  delete(keyId: string): void {
    this.bans.delete(keyId);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The script as @upstash/ratelimit's algorithm
// ---------------------------------------------------------------------------------------------------------------

type Algorithm = RatelimitConfig["limiter"];
type EngineAnswer = Awaited<ReturnType<ReturnType<Algorithm>["limit"]>>;

/** What one KEY_CHECK call counted, beside the engine's own answer (which describes the tightest window). */
interface KeyCount {
  /** The limiter's clock at the call (Unix ms): ban times are on it. */
  at: number;
  /** The engine's clock at the call (`Date.now()`): the windows' buckets are on it. */
  t: number;
  /** End of a running ban (nothing counted), or of the ban this call issued; 0 when none. */
  banEnd: number;
  /** > 0: this call issued the key's n-th ban of the UTC day; -1: a group that did not fit, given back. */
  banNumber: number;
  /** Each window's count after the increase, in the order of the windows; empty while banned. */
  counts: number[];
}
type KeyAnswer = EngineAnswer & KeyCount;

/** What the algorithm needs beyond the engine's context. */
interface AlgorithmContext {
  ban: RateLimitConfig["ban"];
  keys: KeyChecksContext["keys"];
  now(): number;
}

const settled = Promise.resolve();

/**
 * The algorithm handed to @upstash/ratelimit (its `limiter` option) for a key's `windows`: one KEY_CHECK call that
 * reads the ban, counts `rate` requests in every window and logs a denial (docs/architecture.md "Rate limiter").
 * The counters are the ones the engine's `fixedWindow` keeps (`<window prefix>:<id>:<bucket>`, the same expiry),
 * so that instances counting with either count together. The engine's prefix is the key's (the `id` follows it).
 */
function keyCheckAlgorithm(actx: AlgorithmContext, windows: LimitedWindow[]): Algorithm {
  const { ban, keys, now } = actx;
  const instance = randomUUID();
  let serial = 0;
  const limitArgs = windows.flatMap(([spec, limit]) => [limit, spec.ms]);
  // A calendar month's counter lives until that month's end (plus a margin), computed per call.
  const monthAt = windows.findIndex(([spec]) => spec.calendarMonth);
  const banWindowMs = ban.windowSeconds * 1000;
  const banBaseMs = ban.baseSeconds * 1000;
  const algorithm: ReturnType<Algorithm> = {
    async limit(ctx, key, rate = 1): Promise<KeyAnswer> {
      const id = key.slice(ctx.prefix.length + 1);
      const at = now();
      const t = Date.now();
      const counters = [keys.ban(id), keys.denials(id), keys.banCount(id, at)];
      for (const [spec] of windows) counters.push(counterKey(spec, id, t));
      const args: (string | number)[] = [
        at,
        rate,
        banWindowMs,
        ban.threshold,
        banBaseMs,
        `${at}:${instance}:${++serial}`,
        DAY_MS - (at % DAY_MS) + 60_000,
      ];
      for (const a of limitArgs) args.push(a);
      if (monthAt >= 0)
        args[7 + 2 * monthAt + 1] =
          specEnd((windows[monthAt] as LimitedWindow)[0], t) - t + MONTH_COUNTER_GRACE_MS;
      const reply = (await runScript(
        ctx.redis as unknown as RateLimitStore,
        KEY_CHECK,
        counters,
        args,
      )) as unknown[];
      const banEnd = Number(reply[0]);
      const counts: number[] = [];
      for (let i = 3; i < reply.length; i++) counts.push(Number(reply[i]));
      // The engine's own answer describes the window with the fewest requests left (all of them 0 while banned).
      let tightest = 0;
      let left = Number.POSITIVE_INFINITY;
      for (let i = 0; i < windows.length; i++) {
        const limit = (windows[i] as LimitedWindow)[1];
        const l = limit - (counts[i] ?? limit);
        if (l < left) {
          tightest = i;
          left = l;
        }
      }
      const [spec, limit] = windows[tightest] as LimitedWindow;
      return {
        success: banEnd === 0 && left >= 0,
        limit,
        remaining: Math.max(0, left),
        reset: banEnd > at ? banEnd : specEnd(spec, t),
        pending: settled,
        at,
        t,
        banEnd,
        banNumber: Number(reply[1] ?? 0),
        counts,
      };
    },
    async getRemaining(ctx, key) {
      const id = key.slice(ctx.prefix.length + 1);
      const t = Date.now();
      const [spec, limit] = windows[0] as LimitedWindow;
      const used = Number((await ctx.redis.get(counterKey(spec, id, t))) ?? 0);
      return { remaining: Math.max(0, limit - used), reset: specEnd(spec, t), limit };
    },
    async resetTokens(ctx, key) {
      const id = key.slice(ctx.prefix.length + 1);
      const t = Date.now();
      await ctx.redis.del(...windows.map(([spec]) => counterKey(spec, id, t)));
    },
  };
  return () => algorithm;
}

// ---------------------------------------------------------------------------------------------------------------
// Keyed checks
// ---------------------------------------------------------------------------------------------------------------

/** Engines kept at most, one per set of limits. */
const MAX_ENGINES = 1_000;

/** What the keyed checks share with the rest of the limiter. */
interface KeyChecksContext {
  store: RateLimitStore;
  /** The engine's prefix of key checks; the windows' own prefixes name their counters. */
  prefix: string;
  windows: { minute: WindowSpec; day: WindowSpec; month: WindowSpec };
  ban: RateLimitConfig["ban"];
  /** The store's keys of a key's ban, its denial log and its count of bans on the UTC day of `at`. */
  keys: {
    ban(keyId: string): string;
    denials(keyId: string): string;
    banCount(keyId: string, at: number): string;
  };
  bans: BanCache;
  guard: StoreGuard;
  stats: RateLimitMetrics;
  now(): number;
  /** Counts a denial in `stats` and returns it. */
  deniedBy(decision: RateLimitDecision): RateLimitDecision;
  /** Reports a ban this instance issued. */
  notifyBan(keyId: string, until: number, info: BanInfo): void;
}

/** One key check waiting for its store round trip, and then its decision. */
interface KeyCheck {
  limits: KeyLimits;
  /** Clock reading at the check (Unix ms). */
  at: number;
  decision?: RateLimitDecision;
}

/**
 * @returns `checkKey(limits, options)`, the limiter's `RateLimiter["checkKey"]`: never rejects (a store failure or
 *   time-out admits the request, `degraded`).
 */
export function createKeyChecks(
  ctx: KeyChecksContext,
): (limits: KeyLimits, options?: { storeFailed?: boolean }) => Promise<RateLimitDecision> {
  const { store, windows, bans, guard, stats, now, deniedBy, notifyBan } = ctx;

  /** A key's windows with its limits, in the order of the script's counters (the month only with a quota). */
  const windowsOf = ({ perMinute, perDay, perMonth }: KeyLimits): LimitedWindow[] =>
    perMonth
      ? [
          [windows.minute, perMinute],
          [windows.day, perDay],
          [windows.month, perMonth],
        ]
      : [
          [windows.minute, perMinute],
          [windows.day, perDay],
        ];
  /** A key's windows are known per set of limits: a plan change starts from nothing known. */
  const limitsId = ({ perMinute, perDay, perMonth }: KeyLimits) => `${perMinute}|${perDay}|${perMonth ?? ""}`;

  // The engine fixes its algorithm (and so the limits) per instance; the counters do not depend on the limits.
  const engines = new LRUCache<string, { engine: Ratelimit; windows: LimitedWindow[] }>({ max: MAX_ENGINES });
  const engineOf = (limits: KeyLimits) => {
    const id = limitsId(limits);
    let e = engines.get(id);
    if (!e) {
      const limited = windowsOf(limits);
      e = {
        windows: limited,
        engine: new Ratelimit({
          redis: store as unknown as UpstashRedis,
          limiter: keyCheckAlgorithm(ctx, limited),
          prefix: ctx.prefix,
          // Off: denials must reach the store to count towards a ban, and a `resetUsage` on another instance must
          // apply at once.
          ephemeralCache: false,
          analytics: false,
          // Off: the engine would answer limit 0 / reset 0; the limiter bounds every store call itself.
          timeout: 0,
          enableTelemetry: false,
        }),
      };
      engines.set(id, e);
    }
    return e;
  };

  const groupOf = (limits: KeyLimits) => `${limits.keyId}|${limitsId(limits)}`;

  /**
   * Decides the n checks of `group` (of one key and limits, in arrival order) from the store's `answer` to
   * counting them together.
   * @returns false for a group of more than one that did not fit: nothing of it was counted.
   */
  function decide(group: KeyCheck[], answer: KeyAnswer, limited: LimitedWindow[]): boolean {
    const n = group.length;
    const { keyId } = (group[0] as KeyCheck).limits;
    const { at, t, banEnd, banNumber, counts } = answer;
    if (answer.success) {
      stats.admitted += n;
      // The i-th of the n counted before the n - 1 - i after it: that many more were left when it was counted.
      for (const [i, c] of group.entries())
        c.decision = admitted(
          c.at,
          limited.map(([spec, limit], w) => ({
            name: spec.name,
            limit,
            remaining: limit - (counts[w] as number) + n - 1 - i,
            resetMs: specEnd(spec, t),
            windowSeconds: windowSeconds(spec, t),
          })),
        );
      return true;
    }
    if (banNumber === -1) return false;
    if (banEnd > at) {
      bans.set(keyId, banEnd, at);
      if (banNumber > 0) {
        stats.bans++;
        notifyBan(keyId, banEnd, { banNumber, durationSeconds: Math.round((banEnd - at) / 1000) });
      }
      for (const c of group) c.decision = deniedBy(banned(c.at, banEnd, limited));
      return true;
    }
    // One request, denied and given back: a window that held reports its slot free again.
    const states = limited.map(([spec, limit], w) => {
      const count = counts[w] as number;
      return {
        name: spec.name,
        limit,
        remaining: count <= limit ? Math.min(limit, limit - count + 1) : 0,
        resetMs: specEnd(spec, t),
        windowSeconds: windowSeconds(spec, t),
      };
    });
    const denying = states.filter((_, w) => (counts[w] as number) > (limited[w] as LimitedWindow)[1]);
    (group[0] as KeyCheck).decision = deniedBy(rateLimited(at, states, denying));
    return true;
  }

  /**
   * Counts each of `calls` (a group of checks of one key and limits) with one script, every call of the batch under
   * one store bound. @returns the groups that did not fit (nothing of them counted), to be counted one by one.
   */
  async function count(calls: KeyCheck[][]): Promise<KeyCheck[][]> {
    let answers: { engine: KeyAnswer; windows: LimitedWindow[] }[];
    const send = () =>
      guard.bounded(() =>
        Promise.all(
          calls.map(async (group) => {
            const { limits } = group[0] as KeyCheck;
            const e = engineOf(limits);
            const engine = (await e.engine.limit(limits.keyId, { rate: group.length })) as KeyAnswer;
            return { engine, windows: e.windows };
          }),
        ),
      );
    try {
      // The engine and the store issue each script synchronously: a batch's scripts leave in one write.
      answers = await (calls.length > 1 && store.together ? store.together(send) : send());
    } catch (err) {
      guard.failed("check", err);
      for (const group of calls) {
        stats.failOpen += group.length;
        for (const c of group) c.decision = failedOpen(c.at, windowsOf(c.limits));
      }
      return [];
    }
    return calls.filter((group, i) => {
      const a = answers[i] as (typeof answers)[number];
      return !decide(group, a.engine, a.windows);
    });
  }

  /**
   * The checks of one event-loop turn, grouped by key and limits: a group is counted with one script, and one that
   * does not fit (a window has less room than the group) is given back by it and counted one by one.
   */
  const turn = new DataLoader<KeyCheck, RateLimitDecision, KeyCheck>(async (checks) => {
    let calls: KeyCheck[][];
    if (checks.length === 1) calls = [checks as KeyCheck[]];
    else {
      const groups = new Map<string, KeyCheck[]>();
      for (const c of checks) {
        const id = groupOf(c.limits);
        const group = groups.get(id);
        if (group) group.push(c);
        else groups.set(id, [c]);
      }
      calls = [...groups.values()];
    }
    const unfit = await count(calls);
    if (unfit.length > 0) await count(unfit.flatMap((group) => group.map((c) => [c])));
    return checks.map((c) => c.decision as RateLimitDecision);
  }, endOfTurn);

  return async function checkKey(keyLimits, options = {}) {
    stats.checks++;
    const at = now();
    if (options.storeFailed) {
      stats.failOpen++;
      return failedOpen(at, windowsOf(keyLimits));
    }
    const until = bans.known(keyLimits.keyId, at);
    if (until !== undefined) return deniedBy(banned(at, until, windowsOf(keyLimits)));
    return turn.load({ limits: keyLimits, at });
  };
}
