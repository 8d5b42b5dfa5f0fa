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

const FIELDS = ["at", "operation", "status", "durationMs", "clientIp", "requestId"] as const;

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
      const pipeline = client.pipeline();
      const touched = new Set<string>();
      for (const e of entries) {
        pipeline.xadd(
          streamKey(e.keyId),
          "MAXLEN",
          "~",
          RECENT_LIMIT,
          "*",
          ...FIELDS.flatMap((f) => [f, String(e[f])]),
        );
        touched.add(e.keyId);
      }
      for (const keyId of touched) pipeline.expire(streamKey(keyId), ttlSeconds);
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([err]) => err);
      if (failed) throw failed[0];
    },
    async list(keyId, limit) {
      await ready();
      const rows = await client.xrevrange(streamKey(keyId), "+", "-", "COUNT", limit);
      return rows.map(([, values]) => {
        const v: Record<string, string> = {};
        for (let i = 0; i + 1 < values.length; i += 2) v[values[i] as string] = values[i + 1] as string;
        return {
          keyId,
          at: v.at ?? "",
          operation: (v.operation ?? "other") as Operation,
          status: Number(v.status),
          durationMs: Number(v.durationMs),
          clientIp: v.clientIp ?? "",
          requestId: v.requestId ?? "",
        };
      });
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
