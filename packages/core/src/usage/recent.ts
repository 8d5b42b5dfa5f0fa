/**
 * Where each key's last requests are kept (docs/contract.md section 4, "Usage and analytics"): with REDIS_URL a
 * Redis stream per key (`<prefix>:recent:<keyId>`, XADD MAXLEN ~ 100, expiring after the retention period),
 * shared by every instance; otherwise a ring buffer of 100 entries per key in this process (the embedded mode
 * runs one instance; Upstash's REST store also falls back to it).
 */
import type { Config } from "@petstore/config";
import { type ChainableCommander, Redis } from "ioredis";
import type { Operation, RecentRequest, RecentRequestStore } from "./recorder.ts";
import { RECENT_LIMIT } from "./recorder.ts";

/** Ring buffers in memory: at most `RECENT_LIMIT` entries per key. */
export function createMemoryRecentStore(): RecentRequestStore {
  const byKey = new Map<string, RecentRequest[]>();
  return {
    async append(entries) {
      for (const e of entries) {
        let list = byKey.get(e.keyId);
        if (!list) {
          list = [];
          byKey.set(e.keyId, list);
        }
        list.push(e);
        if (list.length > 2 * RECENT_LIMIT) list.splice(0, list.length - RECENT_LIMIT);
      }
    },
    async list(keyId, limit) {
      return (byKey.get(keyId) ?? []).slice(-limit).reverse();
    },
    async close() {},
  };
}

/**
 * One stream entry holds one field, `e`: the request as a JSON array in `ENTRY_ORDER`. One argument instead of six
 * pairs makes an entry several times cheaper to build, and a flush builds one per request of every busy key.
 */
const ENTRY_ORDER = [
  "at",
  "operation",
  "status",
  "durationMs",
  "clientIp",
  "requestId",
  "refusedBy",
] as const;

const REFUSALS: readonly string[] = ["minute", "day", "month", "ban"];

/**
 * Appends one key's entries to its stream and renews the stream's expiry, in one command: a flush holds up to
 * `RECENT_LIMIT` entries of every key used in its interval, and one call per key instead of one XADD per entry
 * keeps building and parsing commands off the event loop's busiest work.
 * KEYS[1]: the stream; ARGV[1]: entries kept (approximate MAXLEN); ARGV[2]: expiry, s; ARGV[3..]: entries.
 */
const APPEND_SCRIPT = `
for i = 3, #ARGV do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i])
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return #ARGV - 2`;

/** The command `APPEND_SCRIPT` defines, as a pipeline takes it. */
type AppendRecent = {
  appendRecent(stream: string, limit: number, ttlSeconds: number, ...entries: string[]): ChainableCommander;
};

/**
 * Entries per pipeline of an append. Building the commands holds the event loop, so a flush sends them in chunks
 * and each chunk's round trip lets the requests waiting meanwhile run.
 */
const APPEND_CHUNK = 512;

/** A stream entry's field-value list, as XRANGE returns it, as a RecentRequest of `keyId`. */
function entryOf(keyId: string, values: string[]): RecentRequest {
  const v: Record<string, string> = {};
  if (values[0] === "e") {
    const parsed = JSON.parse(values[1] ?? "[]") as unknown[];
    ENTRY_ORDER.forEach((name, i) => {
      v[name] = String(parsed[i] ?? "");
    });
  } else {
    // Field per property: what instances without the one-field entry wrote, readable until the stream trims it.
    for (let i = 0; i + 1 < values.length; i += 2) v[values[i] as string] = values[i + 1] as string;
  }
  return {
    keyId,
    at: v.at ?? "",
    operation: (v.operation ?? "other") as Operation,
    status: Number(v.status),
    // Entries written without it (an unknown cause, or an instance that did not record it) have none.
    ...(v.refusedBy && REFUSALS.includes(v.refusedBy)
      ? { refusedBy: v.refusedBy as NonNullable<RecentRequest["refusedBy"]> }
      : {}),
    durationMs: Number(v.durationMs),
    clientIp: v.clientIp ?? "",
    requestId: v.requestId ?? "",
  };
}

/**
 * Redis streams over `url` (its own connection, failing fast while disconnected).
 * @param ttlSeconds how long a key's stream outlives its last request.
 */
export function createRedisRecentStore(url: string, prefix: string, ttlSeconds: number): RecentRequestStore {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    scripts: { appendRecent: { numberOfKeys: 1, lua: APPEND_SCRIPT } },
  });
  client.on("error", () => {}); // reported by the failing append/list instead
  let connecting: Promise<void> | undefined;
  const ready = () => {
    if (client.status === "ready") return Promise.resolve();
    connecting ??= client.connect().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };
  const streamKey = (keyId: string) => `${prefix}:recent:${keyId}`;
  return {
    async append(entries) {
      await ready();
      // Grouped first, encoded key by key below: the encoding is the costly part, and each chunk of it runs
      // between two round trips, never all of a flush in one turn.
      const byKey = new Map<string, RecentRequest[]>();
      for (const e of entries) {
        const list = byKey.get(e.keyId);
        if (list) list.push(e);
        else byKey.set(e.keyId, [e]);
      }
      const newPipeline = () => client.pipeline() as ChainableCommander & AppendRecent;
      let pipeline = newPipeline();
      let size = 0;
      const send = async () => {
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([err]) => err);
        if (failed) throw failed[0];
        pipeline = newPipeline();
        size = 0;
      };
      for (const [keyId, list] of byKey) {
        const encoded = list.map((e) => JSON.stringify(ENTRY_ORDER.map((name) => e[name])));
        pipeline.appendRecent(streamKey(keyId), RECENT_LIMIT, ttlSeconds, ...encoded);
        size += encoded.length;
        if (size >= APPEND_CHUNK) await send();
      }
      if (size > 0) await send();
    },
    async list(keyId, limit) {
      await ready();
      const rows = await client.xrevrange(streamKey(keyId), "+", "-", "COUNT", limit);
      return rows.map(([, values]) => entryOf(keyId, values));
    },
    async close() {
      client.disconnect();
    },
  };
}

/** The store `config` calls for: Redis streams with REDIS_URL, else memory. */
export function createRecentRequestStore(config: Config): RecentRequestStore {
  const store = config.rateLimit.store;
  return store.kind === "redis"
    ? createRedisRecentStore(store.url, config.rateLimit.prefix, config.analytics.retentionDays * 86_400)
    : createMemoryRecentStore();
}
