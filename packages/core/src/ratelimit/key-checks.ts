/**
 * The rate limiter's checks of API keys: a minute and a UTC-day window plus a ban, the DENY and REFUND
 * bookkeeping, the local cache of bans, and the counting together of a key's checks of one event-loop turn.
 * Promises: docs/contract.md section 3 "Rate limits"; mechanics: docs/architecture.md "Rate limiter".
 */
import { randomUUID } from "node:crypto";
import DataLoader from "dataloader";
import { LRUCache } from "lru-cache";
import { endOfTurn } from "../end-of-turn.ts";
import { DAY_MS } from "../utc-day.ts";
import { DENY, type RateLimitStore, REFUND, runScript } from "./store.ts";
import type { StoreGuard } from "./store-guard.ts";
import type { BanInfo, KeyLimits, RateLimitConfig, RateLimitDecision, RateLimitMetrics } from "./types.ts";
import {
  admitted,
  banned,
  failedOpen,
  type fixedWindows,
  type Hit,
  type LimitedWindow,
  rateLimited,
  type WindowSpec,
  windowState,
} from "./windows.ts";

// ---------------------------------------------------------------------------------------------------------------
// The ban cache
// ---------------------------------------------------------------------------------------------------------------

/** A running ban is re-read from the store at least this often (ms), so that an unban elsewhere applies here. */
const RECHECK_MS = 5_000;
/**
 * A key the store said is not banned is not asked again for this long (ms). A ban starts while the key's windows
 * are used up, and then every instance's DENY script reports it; only a ban still running after the key's window
 * turns can go unseen here, for at most this long.
 */
const CLEAR_RECHECK_MS = 1_000;
/** Keys remembered at most (the least recently used are forgotten first: their ban is read again). */
const MAX_BAN_ENTRIES = 10_000;

/** What the cache knows of a key: the end of its running ban (Unix ms), `clear`, or nothing (ask the store). */
type KnownBan = number | "clear" | undefined;

/** keyId -> ban end (Unix ms; 0: not banned) and when the store was last read for it. */
export class BanCache {
  private readonly bans = new LRUCache<string, { until: number; checkedAt: number }>({
    max: MAX_BAN_ENTRIES,
  });

  /** What is known of `keyId` at `at` (Unix ms) from a store read recent enough to trust. */
  known(keyId: string, at: number): KnownBan {
    const cached = this.bans.get(keyId);
    if (!cached) return undefined;
    const age = at - cached.checkedAt;
    if (cached.until === 0) return age < CLEAR_RECHECK_MS ? "clear" : undefined;
    if (cached.until <= at) {
      this.bans.delete(keyId);
      return undefined;
    }
    return age < RECHECK_MS ? cached.until : undefined;
  }

  /** Records that the store said, at `at`, that `keyId` is banned until `until` (0: not banned). */
  set(keyId: string, until: number, at: number): void {
    this.bans.set(keyId, { until, checkedAt: at });
  }

  delete(keyId: string): void {
    this.bans.delete(keyId);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Keyed checks
// ---------------------------------------------------------------------------------------------------------------

/** What the keyed checks share with the rest of the limiter. */
interface KeyChecksContext {
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
  guard: StoreGuard;
  stats: RateLimitMetrics;
  now(): number;
  /** Counts a denial in `stats` and returns it. */
  deniedBy(decision: RateLimitDecision): RateLimitDecision;
  /** Reports a ban this instance issued. */
  notifyBan(keyId: string, until: number, info: BanInfo): void;
}

/** One key check waiting for its store round trip: the key's limits, the clock at the check, its ban as cached. */
interface KeyCheck {
  limits: KeyLimits;
  at: number;
  known: Exclude<KnownBan, number>;
}

/**
 * @returns `checkKey(limits, options)`, the limiter's `RateLimiter["checkKey"]`: never rejects (a store failure or
 *   time-out admits the request, `degraded`).
 */
export function createKeyChecks(
  ctx: KeyChecksContext,
): (limits: KeyLimits, options?: { storeFailed?: boolean }) => Promise<RateLimitDecision> {
  const { store, hit, windows, ban, keys, bans, guard, stats, now, deniedBy, notifyBan } = ctx;

  const windowsOf = ({ perMinute, perDay }: KeyLimits): LimitedWindow[] => [
    [windows.minute, perMinute],
    [windows.day, perDay],
  ];

  /** The DENY round trip for a request a window denied: refund, log the denial, maybe ban. */
  async function deny(keyId: string, at: number, minute: Hit, day: Hit, limits: LimitedWindow[]) {
    const { threshold, windowSeconds: banWindowS, baseSeconds } = ban;
    const reply = await guard.guarded("deny", () =>
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

  /**
   * Counts the n requests of `group` (checks of one key with the same limits, in arrival order) in one store round
   * trip and decides each. `noteRoom` hears what the store said of the key's room: its tightest window's remaining
   * requests and the end of its first window when all were admitted, `undefined` when none is left or a ban runs.
   * @returns the decisions, or `undefined` when a group of more than one does not fit: its counts are then given
   *   back, and its requests must be counted one by one.
   */
  async function count(
    group: KeyCheck[],
    noteRoom: (room: Room | undefined) => void = () => {},
  ): Promise<RateLimitDecision[] | undefined> {
    const n = group.length;
    const { limits: keyLimits, at } = group[0] as KeyCheck;
    const { keyId, perMinute, perDay } = keyLimits;
    const limits = windowsOf(keyLimits);
    const readBan = group.some((c) => c.known !== "clear");
    let results: [string | null, Hit, Hit];
    try {
      // Started in the same tick, the commands are in flight together: one round trip.
      results = await guard.bounded(() =>
        Promise.all([
          readBan ? store.get(keys.ban(keyId)) : null,
          hit(windows.minute, perMinute, keyId, n),
          hit(windows.day, perDay, keyId, n),
        ]),
      );
    } catch (err) {
      guard.failed("check", err);
      stats.failOpen += n;
      return group.map((c) => failedOpen(c.at, limits));
    }
    const [banValue, minute, day] = results;
    const bannedUntil = Number(banValue ?? 0);
    if (bannedUntil > at) {
      bans.set(keyId, bannedUntil, at);
      noteRoom(undefined);
      await guard.guarded("refund", () => runScript(store, REFUND, [minute.key, day.key], [n]));
      return group.map((c) => deniedBy(banned(c.at, bannedUntil, limits)));
    }
    if (readBan) bans.set(keyId, 0, at);
    if (minute.success && day.success) {
      stats.admitted += n;
      noteRoom({
        remaining: Math.min(minute.remaining, day.remaining),
        until: Math.min(minute.resetMs, day.resetMs),
      });
      // The i-th of the n counted before the n - 1 - i after it: that many more were left when it was counted.
      return group.map((c, i) =>
        admitted(c.at, [windowState(minute, false, n - 1 - i), windowState(day, false, n - 1 - i)]),
      );
    }
    noteRoom(undefined);
    if (n === 1) return [await deny(keyId, at, minute, day, limits)];
    await guard.guarded("refund", () => runScript(store, REFUND, [minute.key, day.key], [n]));
    return undefined;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Counting a key's checks of one event-loop turn together. Without it, `checkKey` below would end in
  // `count([check])`, and `count`'s `noteRoom`, `Room` and `Headroom` (end of this file) would go.
  // -------------------------------------------------------------------------------------------------------------

  const rooms = new Headroom();
  /** A key's room is known per set of limits: a plan change starts from nothing known. */
  const roomOf = ({ keyId, perMinute, perDay }: KeyLimits) => `${keyId}|${perMinute}|${perDay}`;

  /** `count` with the key's room recorded; a group that does not fit is counted one by one. */
  async function countTogether(group: KeyCheck[]): Promise<RateLimitDecision[]> {
    const id = roomOf((group[0] as KeyCheck).limits);
    const decisions = await count(group, (room) => (room ? rooms.record(id, room) : rooms.forget(id)));
    return decisions ?? countOneByOne(group.map((c) => ({ ...c, known: "clear" })));
  }

  /** Each check of `group` counted alone (in one round trip all the same: they start in the same tick). */
  async function countOneByOne(group: KeyCheck[]): Promise<RateLimitDecision[]> {
    const decisions = await Promise.all(group.map((c) => countTogether([c])));
    return decisions.map(([decision]) => decision as RateLimitDecision);
  }

  /**
   * The checks of one event-loop turn, grouped by key and limits; a group is counted together when the room the
   * store last reported fits it all, else one by one.
   */
  const turn = new DataLoader<KeyCheck, RateLimitDecision, KeyCheck>(async (checks) => {
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
        const together = group.length === 1 || rooms.take(id, group.length, first.at);
        const decisions = await (together ? countTogether(group) : countOneByOne(group));
        for (const [i, c] of group.entries()) decided.set(c, decisions[i] as RateLimitDecision);
      }),
    );
    return checks.map((c) => decided.get(c) as RateLimitDecision);
  }, endOfTurn);

  // -------------------------------------------------------------------------------------------------------------

  return async function checkKey(keyLimits, options = {}) {
    stats.checks++;
    const at = now();
    if (options.storeFailed) {
      stats.failOpen++;
      return failedOpen(at, windowsOf(keyLimits));
    }
    const known = bans.known(keyLimits.keyId, at);
    if (typeof known === "number") return deniedBy(banned(at, known, windowsOf(keyLimits)));
    return turn.load({ limits: keyLimits, at, known });
  };
}

/** What the store last reported of a key's room (part of counting a turn's checks together). */
interface Room {
  /** Requests left in the window with the fewest left. */
  remaining: number;
  /** Unix ms at which the first of the windows ends: the room is unknown from then on. */
  until: number;
}

/** Rooms remembered at most (the least recently used are forgotten first: that key is counted request by request). */
const MAX_ROOMS = 10_000;

/**
 * This instance's last knowledge of each key's room, by an identifier of the limiter's choosing (a key and its
 * limits). A hint, never a decision: it only chooses whether a turn's checks of a key are counted together.
 */
class Headroom {
  private readonly rooms = new LRUCache<string, Room>({ max: MAX_ROOMS });

  /**
   * Sets aside room for `count` requests in room `id` at `at` (Unix ms).
   * @returns true when the last report left at least `count` requests in every window (they are then deducted
   *   until the store reports again); false when the room is unknown, has ended or is too small.
   */
  take(id: string, count: number, at: number): boolean {
    const room = this.rooms.get(id);
    if (!room || room.until <= at || room.remaining < count) return false;
    room.remaining -= count;
    return true;
  }

  /** Records a store report for room `id`. */
  record(id: string, room: Room): void {
    this.rooms.set(id, room);
  }

  forget(id: string): void {
    this.rooms.delete(id);
  }
}
