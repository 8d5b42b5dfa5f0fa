/**
 * Store over a Redis server via TCP with ioredis (docs/contract.md section 3 "Store": `REDIS_URL`; mechanics:
 * docs/architecture.md "Rate limiter").
 *
 * ioredis fails fast instead of queueing while disconnected (no offline queue, one retry per command, a connect
 * timeout of `timeoutMs`) and keeps reconnecting in the background (backoff up to 2 s). It sets no per-command
 * timeout: the limiter bounds every store call with its own timer. Each command goes to the socket as it is made,
 * except within `together`, which corks the socket so that a turn's key checks leave in one write; ioredis's
 * auto-pipelining, which gathers every turn's commands through a pipeline object and a promise per command, costs
 * more CPU per request than the writes it saves (docs/performance.md "Where the time goes").
 */
import { Redis } from "ioredis";
import { inChildSpan } from "../tracing.ts";
import { type RateLimitStore, scriptAdapter } from "./store.ts";

/**
 * `call()` inside a span named after the Redis command, child of the traced request (tracing.ts), with the
 * database client attributes of the semantic conventions (opentelemetry.io/docs/specs/semconv/database/redis/).
 */
function commandSpan(server: { address: string; port: number }) {
  return <T>(command: string, call: () => Promise<T>): Promise<T> =>
    inChildSpan(
      command,
      {
        "db.system.name": "redis",
        "db.operation.name": command,
        "server.address": server.address,
        "server.port": server.port,
      },
      call,
    );
}

/**
 * Creates the Redis store and starts connecting.
 * @param url `redis://` or `rediss://` URL.
 * @param opts.timeoutMs connect timeout in ms (the limiter times each call itself).
 * @param opts.onError called with connection errors (ioredis would otherwise print them); must not throw.
 */
export function createRedisStore(
  url: string,
  opts: { timeoutMs: number; onError?: (err: Error) => void },
): RateLimitStore {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    enableAutoPipelining: false,
    maxRetriesPerRequest: 1,
    connectTimeout: opts.timeoutMs,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
  });
  client.on("error", (err: Error) => opts.onError?.(err));
  const parsed = new URL(url);
  const span = commandSpan({ address: parsed.hostname, port: Number(parsed.port || 6379) });
  const scripting = scriptAdapter({
    evalsha: (sha, keys, args) =>
      span("EVALSHA", () => client.evalsha(sha, keys.length, ...keys, ...(args as string[]))),
    eval: (script, keys, args) =>
      span("EVAL", () => client.eval(script, keys.length, ...keys, ...(args as string[]))),
  });
  let closed = false;

  return {
    kind: "redis",
    ...scripting,
    get: (key) => span("GET", () => client.get(key)),
    set: (key, value, o) =>
      span("SET", () => (o?.px === undefined ? client.set(key, value) : client.set(key, value, "PX", o.px))),
    del: (...keys) => (keys.length === 0 ? Promise.resolve(0) : span("DEL", () => client.del(...keys))),
    async ping() {
      await client.ping();
    },
    reconnect() {
      if (!closed) client.disconnect(true);
    },
    together(issue) {
      const socket = client.status === "ready" ? client.stream : undefined;
      socket?.cork();
      try {
        return issue();
      } finally {
        socket?.uncork();
      }
    },
    ready() {
      if (client.status === "ready") return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const onReady = () => {
          client.off("error", onFail);
          resolve();
        };
        const onFail = (err: Error) => {
          client.off("ready", onReady);
          reject(err);
        };
        client.once("ready", onReady);
        client.once("error", onFail);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      if (client.status === "ready") await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}
