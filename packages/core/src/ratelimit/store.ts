/**
 * The one store interface behind the limiter (docs/contract.md section 3 "Store"), and the Lua script adapter
 * shared by the two Redis-backed stores.
 *
 * The interface is the Redis subset that @upstash/ratelimit calls (`evalsha`, `eval`, `get`, `set`) plus what the
 * limiter itself needs (`del`, `ping`, `ready`, `close`). The Redis (ioredis) and Upstash (REST) stores forward it
 * to a server; the memory store runs the same scripts as JavaScript (see memory-store.ts).
 */
import { createHash } from "node:crypto";
import type { StoreKind } from "./types.ts";

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
export function stripShebang(script: string): string {
  return script.startsWith("#!") ? script.slice(script.indexOf("\n") + 1) : script;
}

/** The raw scripting commands of a Redis client. */
export interface RawScripting {
  evalsha(sha1: string, keys: string[], args: unknown[]): Promise<unknown>;
  eval(script: string, keys: string[], args: unknown[]): Promise<unknown>;
}

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
 * So the first run of a script costs two round trips per process, every later one a single EVALSHA.
 */
export function scriptAdapter(raw: RawScripting): Pick<RateLimitStore, "evalsha" | "eval"> {
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
  script: { lua: string; sha: string },
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
