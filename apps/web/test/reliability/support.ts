/**
 * `useFaultyServer`: the production server reaching PostgreSQL and Redis through fault-injecting TCP proxies
 * (support/tcp-proxy.ts), on a database with an admin and a key; and requests timed to the end of their body.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  startProductionServer,
} from "../instances/production-server.ts";
import { freePort, PASSWORD } from "../support/common.ts";
import { openTestDatabase } from "../support/database.ts";
import { sessionCookie, signIn as signInAs } from "../support/http-calls.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";

export { sleep } from "@petstore/core/testing";
export { PASSWORD };

export const ADMIN = "admin@reliability.test";
export const REDIS_PORT = 6379;
export const POSTGRES_PORT = 5432;

export interface Faulty {
  db: PreparedDatabase;
  server: ProductionServer;
  baseUrl: string;
  /** An enterprise key with generous limits. */
  key: string;
  /** The proxy in front of PostgreSQL (when the server reaches it through one). */
  postgres?: TcpProxy;
  /** The proxy in front of Redis (when the server reaches it through one). */
  redis?: TcpProxy;
  categoryId: number;
}

/**
 * Before the block's tests: a database, the proxies asked for, and a server reaching PostgreSQL (and Redis,
 * under a key prefix of its own) through them with `env`; killed after them.
 */
export function useFaultyServer(
  through: { postgres?: boolean; redis?: boolean },
  env: Record<string, string> = {},
): Faulty {
  const f = {} as Faulty;
  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    const db = await openTestDatabase({
      prefix: "petstore_reliability",
      users: [{ email: ADMIN, role: "admin", name: "Admin" }],
      key: { name: "reliability", perMinute: 1_000_000, perDay: 10_000_000 },
    });
    [f.db, f.key] = [db, db.key];
    f.categoryId = (await f.db.rt.categories.list())[0]?.id ?? 1;
    let databaseUrl = f.db.url;
    if (through.postgres) {
      f.postgres = new TcpProxy(POSTGRES_PORT);
      await f.postgres.open();
      const url = new URL(f.db.url);
      url.port = String(f.postgres.port);
      databaseUrl = url.toString();
    }
    let redisUrl = `redis://127.0.0.1:${REDIS_PORT}`;
    if (through.redis) {
      f.redis = new TcpProxy(REDIS_PORT);
      await f.redis.open();
      redisUrl = `redis://127.0.0.1:${f.redis.port}`;
    }
    const port = await freePort();
    f.server = await startProductionServer(port, {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      RATE_LIMIT_PREFIX: `petstore-test:reliability:${randomUUID().slice(0, 8)}`,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TRUST_PROXY: "1",
      ...env,
    });
    f.baseUrl = f.server.baseUrl;
  }, 300_000);
  afterAll(async () => {
    // Killed, not stopped: a clean stop is not what these tests check, and after a dependency went silent it
    // takes seconds.
    f.server?.signal("SIGKILL");
    await f.server?.exited;
    await f.postgres?.cut();
    await f.redis?.cut();
    await f.db?.drop();
  });
  return f;
}

export interface Timed {
  status: number;
  ms: number;
  headers: Headers;
  text: string;
}

/** One request, timed from send to the end of the body; network failures give status 0. */
export async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    return { status: response.status, ms: performance.now() - started, headers: response.headers, text };
  } catch {
    return { status: 0, ms: performance.now() - started, headers: new Headers(), text: "" };
  }
}

/** Signs ADMIN in over HTTP and returns the Cookie header value of the session. */
export async function signIn(baseUrl: string): Promise<string> {
  return sessionCookie(await signInAs({ baseUrl }, ADMIN));
}

/**
 * Calls `probe` until it returns true, at most `timeoutMs`.
 * @returns the milliseconds it took.
 * @throws when it never does.
 */
export async function msUntil(probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
