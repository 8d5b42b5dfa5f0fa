/**
 * The one store interface behind the rate limiter, the Lua script adapter of the two Redis-backed stores, and the
 * limiter's own scripts (REFUND, KEY_CHECK), each with a JavaScript twin the memory store runs instead of Lua. Promises:
 * docs/contract.md section 3 "Store"; mechanics: docs/architecture.md "Rate limiter".
 */
import { createHash } from "node:crypto";
import type { StoreKind } from "./types.ts";

/**
 * The Redis subset that @upstash/ratelimit calls (`evalsha`, `eval`, `get`, `set`) plus what the limiter itself
 * needs (`del`, `ping`, `ready`, `reconnect`, `close`).
 */
export interface RateLimitStore {
  readonly kind: StoreKind;
  /**
   * EVALSHA. `sha1` is the hash of the script text as the caller knows it (@upstash/ratelimit passes the hash of
   * its own text, shebang line included). Rejects with an error whose message contains "NOSCRIPT" when the script
   * is unknown; the caller then uses `eval`.
   */
  evalsha(sha1: string, keys: string[], args: unknown[]): Promise<unknown>;
  /** EVAL of a Lua script; integer replies are numbers, bulk replies strings, nil is null. */
  eval(script: string, keys: string[], args: unknown[]): Promise<unknown>;
  /** GET: the string value or null. */
  get(key: string): Promise<string | null>;
  /** SET, optionally with a time to live in ms (`px`). */
  set(key: string, value: string | number, opts?: { px?: number }): Promise<unknown>;
  /** DEL: number of keys removed. */
  del(...keys: string[]): Promise<number>;
  /** Round trip to the store; rejects when it is unreachable. */
  ping(): Promise<void>;
  /** Resolves once the store can take commands (a TCP store after connecting); rejects on a connection error. */
  ready(): Promise<void>;
  /** Drops the connection and opens a new one (a connection that went silent is never answered again). */
  reconnect?(): void;
  /**
   * Runs `issue` and returns what it returns; the commands it issues synchronously go to the store in one write
   * (a TCP store corks its socket meanwhile). Stores that batch on their own (REST) or have no socket just run it.
   */
  together?<T>(issue: () => T): T;
  /** Releases connections and timers. Idempotent. */
  close(): Promise<void>;
}

/** Hex SHA-1 of a script text, as Redis computes it for EVALSHA. */
export function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/**
 * Drops a leading `#!lua flags=...` shebang line, which Redis 7.0 rejects ("Unexpected flag in script shebang");
 * @upstash/ratelimit 2.2.0 begins every script with `#!lua flags=allow-key-locking`.
 */
function stripShebang(script: string): string {
  return script.startsWith("#!") ? script.slice(script.indexOf("\n") + 1) : script;
}

/** The scripting commands of a store, or of the raw Redis client under it. */
type Scripting = Pick<RateLimitStore, "evalsha" | "eval">;

interface Prepared {
  body: string;
  sha: string;
}

const isNoScript = (err: unknown) => String((err as Error)?.message ?? err).includes("NOSCRIPT");

/**
 * Wraps a raw Redis client's scripting so that scripts run on Redis 7.0:
 * - the shebang line is stripped and the stripped body is hashed for EVALSHA;
 * - `evalsha(callerSha)` maps the caller's hash (of the unstripped text) to the stripped one. A hash not seen
 *   before fails at once with NOSCRIPT (no round trip), so the caller falls back to `eval(text)`, which teaches it;
 * - every run is EVALSHA of the stripped body, falling back to EVAL on NOSCRIPT (EVAL also loads it on the server).
 */
export function scriptAdapter(raw: Scripting): Scripting {
  const byCallerSha = new Map<string, Prepared>();
  const byText = new Map<string, Prepared>();

  const prepare = (script: string): Prepared => {
    let p = byText.get(script);
    if (!p) {
      const body = stripShebang(script);
      p = { body, sha: sha1(body) };
      byText.set(script, p);
      byCallerSha.set(sha1(script), p);
    }
    return p;
  };

  const run = async (p: Prepared, keys: string[], args: unknown[]): Promise<unknown> => {
    try {
      return await raw.evalsha(p.sha, keys, args);
    } catch (err) {
      if (isNoScript(err)) return raw.eval(p.body, keys, args);
      throw err;
    }
  };

  return {
    async evalsha(sha, keys, args) {
      const p = byCallerSha.get(sha);
      if (!p) throw new Error(`NOSCRIPT script ${sha} not loaded through this adapter yet`);
      return run(p, keys, args);
    },
    eval: (script, keys, args) => run(prepare(script), keys, args),
  };
}

/**
 * Runs a script through a store like @upstash/ratelimit does: EVALSHA with the text's hash, EVAL on NOSCRIPT.
 * @returns the script's reply.
 */
export async function runScript(
  store: RateLimitStore,
  script: Pick<Script, "lua" | "sha">,
  keys: string[],
  args: unknown[],
): Promise<unknown> {
  try {
    return await store.evalsha(script.sha, keys, args);
  } catch (err) {
    if (isNoScript(err)) return store.eval(script.lua, keys, args);
    throw err;
  }
}

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
 * KEY_CHECK: one check of a key (or of an account whose keys share windows) in one call: its ban, its fixed windows
 * and, when a window is over its limit, the bookkeeping of the denial.
 * KEYS: 1 ban (value = ban end, Unix ms), 2 denial log (sorted set, score = time), 3 today's ban counter, 4.. one
 * counter per window (`<prefix>:<id>:<bucket>`, as @upstash/ratelimit's fixedWindow names and counts them).
 * ARGV: 1 now (ms), 2 requests to count (n), 3 denial window (ms), 4 threshold, 5 base ban (ms), 6 unique member,
 * 7 ttl of the ban counter (ms), then per window its limit and its ttl (ms, set when the counter is created).
 * A running ban counts nothing: reply {banEnd}. Otherwise each counter is increased by n; when every window holds,
 * reply {0, 0, 0, count...} (the counts after the increase). When one does not, the n are taken back from every
 * counter; for n > 1 (a group the caller then counts one by one) reply {0, -1, 0, count...}; for one request the
 * denial is logged, and more than `threshold` denials within the window ban the key for base * 2^(bans today - 1)
 * and clear the log: reply {banEnd, banNumber, denials, count...} ({0, 0, denials, ...} without a ban).
 * The windows are the minute, the UTC day and, for a key with a monthly quota, the UTC calendar month (its ttl runs
 * to the month's end): a quota costs one more counter in the same call, never another round trip.
 */
export const KEY_CHECK = defineScript(
  `local now = tonumber(ARGV[1])
local banEnd = tonumber(redis.call('GET', KEYS[1]) or '0')
if banEnd > now then return {banEnd} end
local n = tonumber(ARGV[2])
local reply = {0, 0, 0}
local over = false
for i = 4, #KEYS do
  local count = redis.call('INCRBY', KEYS[i], n)
  if count == n then redis.call('PEXPIRE', KEYS[i], ARGV[2 * i + 1]) end
  if count > tonumber(ARGV[2 * i]) then over = true end
  reply[i] = count
end
if not over then return reply end
for i = 4, #KEYS do redis.call('DECRBY', KEYS[i], n) end
if n > 1 then
  reply[2] = -1
  return reply
end
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
redis.call('ZADD', KEYS[2], now, ARGV[6])
local denials = redis.call('ZCARD', KEYS[2])
reply[3] = denials
if denials <= tonumber(ARGV[4]) then
  redis.call('PEXPIRE', KEYS[2], window)
  return reply
end
redis.call('DEL', KEYS[2])
local bans = redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], ARGV[7])
local duration = tonumber(ARGV[5]) * math.pow(2, math.min(bans - 1, 20))
reply[1] = now + duration
reply[2] = bans
redis.call('SET', KEYS[1], string.format('%.0f', now + duration), 'PX', string.format('%.0f', duration))
return reply`,
  (db, keys, args) => {
    const [banKey = "", logKey = "", countKey = "", ...counters] = keys;
    const num = (i: number) => Number(args[i]);
    const now = num(0);
    const banEnd = Number(db.get(banKey) ?? 0);
    if (banEnd > now) return [banEnd];
    const n = num(1);
    const reply = [0, 0, 0];
    let over = false;
    counters.forEach((key, j) => {
      const count = db.incrBy(key, n);
      if (count === n) db.pexpire(key, num(8 + 2 * j));
      if (count > num(7 + 2 * j)) over = true;
      reply.push(count);
    });
    if (!over) return reply;
    for (const key of counters) db.incrBy(key, -n);
    if (n > 1) {
      reply[1] = -1;
      return reply;
    }
    const window = num(2);
    const log = db.zset(logKey);
    for (const [m, score] of log) if (score <= now - window) log.delete(m);
    log.set(String(args[5]), now);
    const denials = log.size;
    reply[2] = denials;
    if (denials <= num(3)) {
      db.pexpire(logKey, window);
      return reply;
    }
    db.del(logKey);
    const bans = db.incrBy(countKey, 1);
    db.pexpire(countKey, num(6));
    const duration = num(4) * 2 ** Math.min(bans - 1, 20);
    db.set(banKey, String(now + duration), duration);
    reply[0] = now + duration;
    reply[1] = bans;
    return reply;
  },
);

/** Scripts the memory store can run, by SHA-1 of their text. */
export const OWN_SCRIPTS: Script[] = [REFUND, KEY_CHECK];
