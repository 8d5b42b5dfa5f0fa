/**
 * In-process store for a single instance, the development default (docs/contract.md section 3 "Store"; mechanics:
 * docs/architecture.md "Rate limiter").
 *
 * It implements the same `RateLimitStore` as the Redis stores, so @upstash/ratelimit and the limiter run unchanged
 * on top of it. Instead of a Lua interpreter, the few scripts used are mirrored as JavaScript functions looked up
 * by the SHA-1 of their text: @upstash/ratelimit's fixedWindow `limit` script and the limiter's own REFUND and
 * DENY. Any other script is rejected loudly, so an upgrade of @upstash/ratelimit that changes its script fails the
 * tests instead of silently mis-counting. Each script runs synchronously inside one call, hence atomically, like
 * Lua on a Redis server. Expiry follows the real clock (`Date.now()`), as on a Redis server. (ioredis-mock is
 * ruled out: docs/architecture.md "Rate limiter" says why.)
 */
import { type MemoryDb, OWN_SCRIPTS, type RateLimitStore, type Script, sha1 } from "./store.ts";

interface Entry {
  value: string | Map<string, number>;
  expiresAt: number | null;
}

/** @upstash/ratelimit 2.2.0 `fixedWindowLimitScript` (single region): KEYS[1] counter, ARGV tokens, window, by. */
const UPSTASH_FIXED_WINDOW_LIMIT: Pick<Script, "sha" | "run"> = {
  sha: "b2efc02798c8e9b471a10f9b1d5745db89923ff3",
  run(db, keys, args) {
    const [key = "", dynamicLimitKey] = keys;
    const [tokens, window, incrementBy] = args.map(Number) as [number, number, number];
    const dynamic = dynamicLimitKey ? db.get(dynamicLimitKey) : null;
    const effectiveLimit = dynamic === null ? tokens : Number(dynamic);
    const r = db.incrBy(key, incrementBy);
    if (r === incrementBy) db.pexpire(key, window);
    return [r, effectiveLimit];
  },
};

/**
 * Creates the in-process store. Expired entries are dropped when read and by a sweep (timer unref'd).
 * @param opts.sweepMs interval of the expired-entry sweep in ms (default 30 000).
 */
export function createMemoryStore(opts: { sweepMs?: number } = {}): RateLimitStore {
  const data = new Map<string, Entry>();
  const scripts = new Map<string, Pick<Script, "run">>([
    [UPSTASH_FIXED_WINDOW_LIMIT.sha, UPSTASH_FIXED_WINDOW_LIMIT],
    ...OWN_SCRIPTS.map((s) => [s.sha, s] as const),
  ]);

  const live = (key: string): Entry | undefined => {
    const e = data.get(key);
    if (e && e.expiresAt !== null && e.expiresAt <= Date.now()) {
      data.delete(key);
      return undefined;
    }
    return e;
  };

  const db: MemoryDb = {
    get(key) {
      const v = live(key)?.value;
      return typeof v === "string" ? v : null;
    },
    set(key, value, px) {
      data.set(key, { value, expiresAt: px === undefined ? null : Date.now() + px });
    },
    incrBy(key, by) {
      const e = live(key);
      const next = (e && typeof e.value === "string" ? Number(e.value) : 0) + by;
      if (e) e.value = String(next);
      else data.set(key, { value: String(next), expiresAt: null });
      return next;
    },
    pexpire(key, ms) {
      const e = live(key);
      if (e) e.expiresAt = Date.now() + ms;
    },
    exists: (key) => live(key) !== undefined,
    del: (key) => (live(key) !== undefined && data.delete(key) ? 1 : 0),
    zset(key) {
      const e = live(key);
      if (e && e.value instanceof Map) return e.value;
      const z = new Map<string, number>();
      data.set(key, { value: z, expiresAt: null });
      return z;
    },
  };

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, e] of data) if (e.expiresAt !== null && e.expiresAt <= now) data.delete(key);
  }, opts.sweepMs ?? 30_000);
  sweep.unref();

  const evalsha = async (sha: string, keys: string[], args: unknown[]) => {
    const script = scripts.get(sha);
    if (!script) throw new Error(`NOSCRIPT memory store has no script ${sha}`);
    return script.run(db, keys, args);
  };

  return {
    kind: "memory",
    evalsha,
    async eval(script, keys, args) {
      const sha = sha1(script);
      if (!scripts.has(sha)) throw new Error(`memory store cannot run this script (sha1 ${sha})`);
      return evalsha(sha, keys, args);
    },
    async get(key) {
      return db.get(key);
    },
    async set(key, value, o) {
      db.set(key, String(value), o?.px);
      return "OK";
    },
    async del(...keys) {
      return keys.reduce((n, k) => n + db.del(k), 0);
    },
    async ping() {},
    async ready() {},
    async close() {
      clearInterval(sweep);
    },
  };
}
