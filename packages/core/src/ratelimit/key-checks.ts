/**
 * The keyed checks of the rate limiter (docs/contract.md section 3 "Rate limits"; limiter.ts builds them).
 *
 * Per API key two fixed windows, a minute and a UTC day (@upstash/ratelimit `fixedWindow`, windows.ts: buckets
 * are `floor(Date.now() / window)`, so the day bucket turns at 00:00 UTC), plus a ban. A check sends the minute
 * and day `limit` at once, with a ban GET when the ban cache has not read the key's ban within the last second,
 * and the store pipelines them: one store round trip for an admitted request. A denied request then costs one
 * more round trip, the DENY script, which refunds the request's increments of both windows (so a request denied
 * by one window consumes neither budget, and a denied one leaves no trace: each counter equals the admitted
 * requests plus those still in flight) and logs the denial for the ban in the same atomic call. A request that
 * finds a ban running has its increments taken back (REFUND script). Never over-admits: a request passes only if
 * both windows' counters, after its own increment, are within limit.
 *
 * Checks of one key made in the same event-loop turn (DataLoader, as the hot reads) are counted together, in
 * arrival order, by one `limit` per window with the engine's `rate` (docs/architecture.md: nothing on the hot path
 * blocks on I/O that can be batched), when the room the store last reported fits them all (headroom.ts): the
 * i-th of n requests then gets exactly the decision and remaining counts it would have got alone after the i - 1
 * before it. A group that does not fit after all, because another instance used the room meanwhile, is refunded
 * at once and its requests are counted one by one; so are the checks of a key near a limit or new in its windows.
 */
import { randomUUID } from "node:crypto";
import DataLoader from "dataloader";
import { endOfTurn } from "../end-of-turn.ts";
import type { BanCache, KnownBan } from "./ban-cache.ts";
import {
  admitted,
  banned,
  failedOpen,
  type LimitedWindow,
  rateLimited,
  type WindowSpec,
} from "./decisions.ts";
import { Headroom } from "./headroom.ts";
import { DENY, REFUND } from "./scripts.ts";
import { type RateLimitStore, runScript } from "./store.ts";
import type { StoreFailures } from "./store-failures.ts";
import { DAY_MS } from "./time.ts";
import type { BanInfo, KeyLimits, RateLimitConfig, RateLimitDecision, RateLimitMetrics } from "./types.ts";
import { type fixedWindows, type Hit, windowState } from "./windows.ts";

/** What the keyed checks share with the rest of the limiter. */
export interface KeyChecksContext {
  store: RateLimitStore;
  hit: ReturnType<typeof fixedWindows>["hit"];
  windows: { minute: WindowSpec; day: WindowSpec };
  ban: RateLimitConfig["ban"];
  /** The store's keys of a key's ban, its denial log and its count of bans on the UTC day of `at`. */
  keys: {
    ban(keyId: string): string;
    denials(keyId: string): string;
    banCount(keyId: string, at: number): string;
  };
  bans: BanCache;
  failures: StoreFailures;
  stats: RateLimitMetrics;
  /** Runs a store call under the breaker and the store timeout. */
  bounded<T>(call: () => Promise<T>): Promise<T>;
  now(): number;
  /** Counts a denial in `stats` and returns it. */
  deniedBy(decision: RateLimitDecision): RateLimitDecision;
  /** Reports a ban this instance issued. */
  notifyBan(keyId: string, until: number, info: BanInfo): void;
}

/** One key check waiting for its turn's store round trip: the key's limits, the clock at the check, its ban as cached. */
interface KeyCheck {
  limits: KeyLimits;
  at: number;
  known: Exclude<KnownBan, number>;
}

/**
 * @returns `checkKey(limits, options)`, the limiter's `RateLimiter["checkKey"]`: never rejects (a store failure or
 *   time-out admits the request, `degraded`).
 */
export function createKeyChecks(ctx: KeyChecksContext) {
  const { store, hit, windows, ban, keys, bans, failures, stats, bounded, now, deniedBy, notifyBan } = ctx;
  const room = new Headroom();

  /** The DENY round trip for a request a window denied: refund, log the denial, maybe ban. */
  async function deny(keyId: string, at: number, minute: Hit, day: Hit, limits: LimitedWindow[]) {
    const { threshold, windowSeconds: banWindowS, baseSeconds } = ban;
    const reply = await failures.guarded("deny", () =>
      runScript(
        store,
        DENY,
        [keys.ban(keyId), keys.denials(keyId), keys.banCount(keyId, at), minute.key, day.key],
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
    const states = [windowState(minute, refunded), windowState(day, refunded)];
    const denying = states.filter((_, i) => !(i === 0 ? minute : day).success);
    return deniedBy(rateLimited(at, states, denying));
  }

  /** A key's room is known per set of limits: a plan change starts from nothing known. */
  const roomOf = ({ keyId, perMinute, perDay }: KeyLimits) => `${keyId}|${perMinute}|${perDay}`;
  const windowsOf = ({ perMinute, perDay }: KeyLimits): LimitedWindow[] => [
    [windows.minute, perMinute],
    [windows.day, perDay],
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
          readBan ? store.get(keys.ban(keyId)) : null,
          hit(windows.minute, perMinute, keyId, n),
          hit(windows.day, perDay, keyId, n),
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
      const id = roomOf(c.limits);
      const group = groups.get(id);
      if (group) group.push(c);
      else groups.set(id, [c]);
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

  return checkKey;
}
