/**
 * Hardening tests that need the deployed process run over HTTP against the production build (`node dist/server.js`
 * over `next build`): `useProductionApp(s)` starts servers for a describe block, each on a fresh, seeded
 * PostgreSQL database with an admin, a staff user and an API key (the rest run in process: in-process.ts); `trpc`/`trpcBatch` call the dashboard API the way its
 * browser client does (optionally from a given client address: the servers run with TRUST_PROXY on, so the
 * last X-Forwarded-For hop is the client).
 */
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll } from "vitest";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  startProductionServer,
} from "../instances/production-server.ts";
import { freePort, PASSWORD } from "../support/common.ts";

export { PASSWORD };

export const ADMIN = "admin@hardening.test";
export const STAFF = "staff@hardening.test";

/** What the request helpers below need of an app: where it listens and its key. */
export interface Target {
  baseUrl: string;
  key: string;
}

export interface App extends Target {
  server: ProductionServer;
  db: PreparedDatabase;
  baseUrl: string;
  /** A generous enterprise key. */
  key: string;
}

/**
 * A migrated (template clone), seeded PostgreSQL database with the hardening accounts (cheap password hashes)
 * and a generous enterprise key, and a production server with `env` on it.
 * @throws when the database cannot be made or the server does not start (nothing is left behind).
 */
export async function startProductionApp(env: Record<string, string> = {}): Promise<App> {
  const temp = await createMigratedDatabase("petstore_hardening");
  let rt: Runtime | undefined;
  try {
    const config = loadConfig({ DATABASE_URL: temp.url, LOG_LEVEL: "silent", PASSWORD_HASH_COST: "10" });
    const opened = await openRuntime({ config, logger: createLogger("silent") });
    rt = opened;
    await opened.seed();
    for (const [email, role] of [
      [ADMIN, "admin"],
      [STAFF, "staff"],
    ] as const) {
      await opened.users.create({ email, name: role, role, password: PASSWORD }, "test");
    }
    const key = (
      await opened.apiKeys.create(
        { name: "hardening", plan: "enterprise", perMinute: 100_000, perDay: 1_000_000 },
        "test",
      )
    ).key;
    const port = await freePort();
    const server = await startProductionServer(port, {
      DATABASE_URL: temp.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TRUST_PROXY: "1",
      // Cold pages in a row, parallel sign-ins: the dashboard pools have a test of their own.
      DASHBOARD_CONCURRENCY: "1000",
      DASHBOARD_ANONYMOUS_SHARE: "1000",
      ...env,
    });
    let dropped = false;
    const db: PreparedDatabase = {
      url: temp.url,
      rt: opened,
      async drop() {
        if (dropped) return;
        dropped = true;
        await opened.close();
        await temp.drop();
      },
    };
    return { server, db, baseUrl: server.baseUrl, key };
  } catch (error) {
    await rt?.close();
    await temp.drop();
    throw error;
  }
}

/** Stops an app's server and drops its database. */
async function stopApp(app: Partial<App>): Promise<void> {
  await app.server?.stop();
  await app.db?.drop();
}

/** Starts a production server with `env` before the block's tests, stops it after them. */
export function useProductionApp(env: Record<string, string> = {}): App {
  return useProductionApps({ app: env }).app;
}

/**
 * Starts one production server per entry of `envs`, side by side, before the block's tests (each on a database
 * of its own), and stops them after. @returns the apps by name, filled in once they have started.
 */
export function useProductionApps<Name extends string>(
  envs: Record<Name, Record<string, string>>,
): Record<Name, App> {
  const apps = Object.fromEntries(Object.keys(envs).map((name) => [name, {}])) as Record<Name, App>;
  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    const names = Object.keys(envs) as Name[];
    const started = await Promise.allSettled(names.map((name) => startProductionApp(envs[name])));
    started.forEach((result, i) => {
      if (result.status === "fulfilled") Object.assign(apps[names[i] as Name], result.value);
    });
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }, 900_000);
  afterAll(async () => {
    await Promise.all(Object.values<App>(apps).map(stopApp));
  });
  return apps;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

export interface CallOptions {
  /** Client address (sent as X-Forwarded-For). */
  ip?: string;
  /** Session token for the cookie. */
  token?: string;
  headers?: Record<string, string>;
}

function headersFor(options: CallOptions): Record<string, string> {
  return {
    ...(options.ip ? { "X-Forwarded-For": options.ip } : {}),
    ...(options.token ? { Cookie: `petstore_session=${options.token}` } : {}),
    ...options.headers,
  };
}

/** One tRPC call: queries as GET, mutations as POST. */
export async function trpc(
  app: Target,
  kind: "query" | "mutation",
  path: string,
  input: unknown,
  options: CallOptions = {},
): Promise<Reply> {
  const headers = headersFor(options);
  if (kind === "query") {
    const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return reply(await fetch(`${app.baseUrl}/api/trpc/${path}${query}`, { headers }));
  }
  return reply(
    await fetch(`${app.baseUrl}/api/trpc/${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(input),
    }),
  );
}

/** A batch of mutations in one POST (`?batch=1`), as httpBatchLink sends it. */
export async function trpcBatch(
  app: Target,
  calls: { path: string; input: unknown }[],
  options: CallOptions = {},
): Promise<Reply> {
  const body = Object.fromEntries(calls.map((c, i) => [String(i), c.input]));
  return reply(
    await fetch(`${app.baseUrl}/api/trpc/${calls.map((c) => c.path).join(",")}?batch=1`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headersFor(options) },
      body: JSON.stringify(body),
    }),
  );
}

/** The tRPC error code of a single (non-batch) reply, or undefined for a success. */
export function trpcCode(r: Reply): string | undefined {
  return (r.body as { error?: { data?: { code?: string } } } | undefined)?.error?.data?.code;
}

/** Per-call outcome codes of a batch reply: "OK" or the tRPC error code. */
export function batchCodes(r: Reply): string[] {
  if (!Array.isArray(r.body)) return [];
  return (r.body as { error?: { data?: { code?: string } } }[]).map((e) => e.error?.data?.code ?? "OK");
}

/** Signs in over HTTP and returns the session token. @throws when the sign-in fails. */
export async function signIn(app: Target, email: string, ip = "198.51.100.200"): Promise<string> {
  const r = await trpc(app, "mutation", "auth.signIn", { email, password: PASSWORD }, { ip });
  const token = /petstore_session=([^;]+)/.exec(r.headers.get("set-cookie") ?? "")?.[1];
  if (r.status !== 200 || !token) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
  return token;
}

/** Sends a REST request with the app's key. */
export async function rest(app: Target, path: string, init: RequestInit = {}): Promise<Reply> {
  return reply(
    await fetch(`${app.baseUrl}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${app.key}`,
        ...(init.body ? { "Content-Type": "application/json" } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    }),
  );
}
