/**
 * Store over Upstash Redis via its REST API with @upstash/redis (docs/contract.md section 3 "Store":
 * `UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`; mechanics: docs/architecture.md "Rate limiter").
 *
 * Replies are kept raw (`automaticDeserialization: false`) so they match the TCP store; no retries and no
 * telemetry (the limiter's own timeout decides when to fail open). Commands issued in the same tick are sent
 * as one `/pipeline` request (auto-pipelining), so a check's concurrent commands cost one HTTP round trip.
 */
import { Redis } from "@upstash/redis";
import { type RateLimitStore, scriptAdapter } from "./store.ts";

/**
 * Creates the Upstash store.
 * @param url REST base URL (`https://...`).
 * @param token REST token.
 */
export function createUpstashStore(url: string, token: string): RateLimitStore {
  const client = new Redis({
    url,
    token,
    retry: false,
    enableTelemetry: false,
    automaticDeserialization: false,
    enableAutoPipelining: true,
  });
  const scripting = scriptAdapter({
    evalsha: (sha, keys, args) => client.evalsha(sha, keys, args),
    eval: (script, keys, args) => client.eval(script, keys, args),
  });

  return {
    kind: "upstash",
    ...scripting,
    get: (key) => client.get<string>(key),
    set: (key, value, o) =>
      o?.px === undefined ? client.set(key, value) : client.set(key, value, { px: o.px }),
    del: (...keys) => (keys.length === 0 ? Promise.resolve(0) : client.del(...keys)),
    async ping() {
      await client.ping();
    },
    async ready() {},
    async close() {},
  };
}
