/** Chooses the store from configuration (docs/contract.md section 3 "Store"). */
import type { RateLimitStoreConfig } from "@petstore/config";
import { createMemoryStore } from "./memory-store.ts";
import { createRedisStore } from "./redis-store.ts";
import type { RateLimitStore } from "./store.ts";
import { createUpstashStore } from "./upstash-store.ts";

/**
 * Builds the store for `config`: Redis over TCP, Upstash over REST, or in-process memory.
 * @param opts.timeoutMs connect/command timeout of the TCP client in ms.
 * @param opts.onError receives background connection errors of the TCP client.
 */
export function createStore(
  config: RateLimitStoreConfig,
  opts: { timeoutMs: number; onError?: (err: Error) => void },
): RateLimitStore {
  switch (config.kind) {
    case "redis":
      return createRedisStore(config.url, opts);
    case "upstash":
      return createUpstashStore(config.url, config.token);
    case "memory":
      return createMemoryStore();
  }
}
