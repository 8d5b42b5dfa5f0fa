/**
 * The limiter's own Lua scripts (refunds and bans, docs/contract.md section 3), each with a JavaScript twin that the
 * memory store runs instead of Lua. Each script is one atomic store round trip.
 */
import { sha1 } from "./store.ts";

/** Key/value operations the JavaScript twins use; implemented by the memory store with Redis semantics. */
export interface MemoryDb {
  get(key: string): string | null;
  /** SET with an optional time to live in ms. */
  set(key: string, value: string, px?: number): void;
  /** INCRBY: creates the key at 0 (no expiry) when missing. */
  incrBy(key: string, by: number): number;
  pexpire(key: string, ms: number): void;
  exists(key: string): boolean;
  del(key: string): number;
  /** The sorted set at `key` (member -> score), created empty when missing. */
  zset(key: string): Map<string, number>;
}

export interface Script {
  lua: string;
  /** SHA-1 of `lua`. */
  sha: string;
  /** The same logic against the memory store. `args` arrive as given by the caller. */
  run(db: MemoryDb, keys: string[], args: unknown[]): unknown;
}

function defineScript(lua: string, run: Script["run"]): Script {
  return { lua, sha: sha1(lua), run };
}

/**
 * REFUND: takes back ARGV[1] requests (default 1) from each fixed-window counter in KEYS that still exists (a
 * refund never recreates an expired or reset window). Reply: 0.
 */
export const REFUND = defineScript(
  `local n = tonumber(ARGV[1] or '1')
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('DECRBY', KEYS[i], n) end
end
return 0`,
  (db, keys, args) => {
    const n = args.length ? Number(args[0]) : 1;
    for (const key of keys) if (db.exists(key)) db.incrBy(key, -n);
    return 0;
  },
);

/**
 * DENY: bookkeeping of a request denied by a window.
 * KEYS: 1 ban key (value = ban end, Unix ms), 2 denial log (sorted set, score = time), 3 today's ban counter,
 * 4.. window counters to refund (as REFUND).
 * ARGV: 1 now (ms), 2 denial window (ms), 3 threshold, 4 base ban (ms), 5 unique member, 6 ttl of the ban counter.
 * Logs the denial; more than `threshold` denials within the window bans the key for base * 2^(bans today - 1)
 * and clears the log. Reply {banEnd, banNumber, denials}: {end, 0, 0} when already banned; {0, 0, n} when not
 * banned; {end, k, n} when this call issued the k-th ban of the day.
 */
export const DENY = defineScript(
  `for i = 4, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('DECR', KEYS[i]) end
end
local now = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current > now then return {current, 0, 0} end
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
redis.call('ZADD', KEYS[2], now, ARGV[5])
local n = redis.call('ZCARD', KEYS[2])
if n <= tonumber(ARGV[3]) then
  redis.call('PEXPIRE', KEYS[2], window)
  return {0, 0, n}
end
redis.call('DEL', KEYS[2])
local bans = redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
local duration = tonumber(ARGV[4]) * math.pow(2, math.min(bans - 1, 20))
local banEnd = now + duration
redis.call('SET', KEYS[1], string.format('%.0f', banEnd), 'PX', string.format('%.0f', duration))
return {banEnd, bans, n}`,
  (db, keys, args) => {
    const [banKey = "", logKey = "", countKey = "", ...windows] = keys;
    for (const key of windows) if (db.exists(key)) db.incrBy(key, -1);
    const [now, window, threshold, base, member, countTtl] = args.map((a, i) => (i === 4 ? a : Number(a)));
    const t = now as number;
    const current = Number(db.get(banKey) ?? 0);
    if (current > t) return [current, 0, 0];
    const log = db.zset(logKey);
    for (const [m, score] of log) if (score <= t - (window as number)) log.delete(m);
    log.set(String(member), t);
    const n = log.size;
    if (n <= (threshold as number)) {
      db.pexpire(logKey, window as number);
      return [0, 0, n];
    }
    db.del(logKey);
    const bans = db.incrBy(countKey, 1);
    db.pexpire(countKey, countTtl as number);
    const duration = (base as number) * 2 ** Math.min(bans - 1, 20);
    db.set(banKey, String(t + duration), duration);
    return [t + duration, bans, n];
  },
);

/** Scripts the memory store can run, by SHA-1 of their text. */
export const OWN_SCRIPTS: Script[] = [REFUND, DENY];
