/**
 * Where each key's last requests are kept (docs/contract.md section 4, "Usage and analytics"): with REDIS_URL a
 * Redis stream per key (`<prefix>:recent:<keyId>`, XADD MAXLEN ~ 100, expiring after the retention period),
 * shared by every instance; otherwise a ring buffer of 100 entries per key in this process (the embedded mode
 * runs one instance; Upstash's REST store also falls back to it).
 */
import type { Config } from "@petstore/config";
import { Redis } from "ioredis";
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
 * pairs makes an XADD several times cheaper to build, and a flush issues one per request of every busy key.
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

const REFUSALS: readonly string[] = ["minute", "day", "ban"];

/**
 * Entries per pipeline of an append. Building the commands holds the event loop, so a flush sends them in chunks
 * and each chunk's round trip lets the requests waiting meanwhile run: a flush of thousands of entries (one per
 * request of a thousand keys) then never stalls the API behind it.
 */
const APPEND_CHUNK = 64;

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
      for (let start = 0; start < entries.length; start += APPEND_CHUNK) {
        const pipeline = client.pipeline();
        const touched = new Set<string>();
        for (const e of entries.slice(start, start + APPEND_CHUNK)) {
          const entry = JSON.stringify(ENTRY_ORDER.map((name) => e[name]));
          pipeline.xadd(streamKey(e.keyId), "MAXLEN", "~", RECENT_LIMIT, "*", "e", entry);
          touched.add(e.keyId);
        }
        for (const keyId of touched) pipeline.expire(streamKey(keyId), ttlSeconds);
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([err]) => err);
        if (failed) throw failed[0];
      }
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
