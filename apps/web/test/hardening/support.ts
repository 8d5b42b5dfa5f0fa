/**
 * Hardening tests run over HTTP against the production build (`node dist/server.js` over `next build`):
 * `useProductionApp` starts one server per describe block on a fresh, seeded PostgreSQL
 * database with an admin, a staff user and an API key; `trpc`/`trpcBatch` call the dashboard API the way its
 * browser client does (optionally from a given client address: the servers run with TRUST_PROXY on, so the
 * last X-Forwarded-For hop is the client).
 */
import { afterAll, beforeAll } from "vitest";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startProductionServer,
} from "../instances/production-server.ts";
import { freePort, PASSWORD } from "../support/common.ts";

export { PASSWORD };

export const ADMIN = "admin@hardening.test";
export const STAFF = "staff@hardening.test";

export interface App {
  server: ProductionServer;
  db: PreparedDatabase;
  baseUrl: string;
  /** A generous enterprise key. */
  key: string;
}

/** Starts a production server with `env` before the block's tests, stops it after them. */
export function useProductionApp(env: Record<string, string> = {}): App {
  const app = {} as App;
  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    app.db = await prepareDatabase("petstore_hardening");
    for (const [email, role] of [
      [ADMIN, "admin"],
      [STAFF, "staff"],
    ] as const) {
      await app.db.rt.users.create({ email, name: role, role, password: PASSWORD }, "test");
    }
    app.key = (
      await app.db.rt.apiKeys.create(
        { name: "hardening", plan: "enterprise", perMinute: 100_000, perDay: 1_000_000 },
        "test",
      )
    ).key;
    const port = await freePort();
    app.server = await startProductionServer(port, {
      DATABASE_URL: app.db.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TRUST_PROXY: "1",
      ...env,
    });
    app.baseUrl = app.server.baseUrl;
  }, 900_000);
  afterAll(async () => {
    await app.server?.stop();
    await app.db?.drop();
  });
  return app;
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
  app: App,
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
  app: App,
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
export async function signIn(app: App, email: string, ip = "198.51.100.200"): Promise<string> {
  const r = await trpc(app, "mutation", "auth.signIn", { email, password: PASSWORD }, { ip });
  const token = /petstore_session=([^;]+)/.exec(r.headers.get("set-cookie") ?? "")?.[1];
  if (r.status !== 200 || !token) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
  return token;
}

/** Sends a REST request with the app's key. */
export async function rest(app: App, path: string, init: RequestInit = {}): Promise<Reply> {
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
