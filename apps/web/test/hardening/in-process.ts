/**
 * The app served in this test process, for the hardening tests of behaviour the app shows whatever process it
 * runs in: `useInProcessApp` builds, before the block's tests, what server.ts builds (the request router of
 * src/server/http/router.ts over the REST app and the operational endpoints, on a node:http server on a free
 * port), with the dashboard's JSON API (dashboard-api.ts, as server.ts mounts it) and no dashboard process,
 * so no pages. Its database is a fresh migrated, seeded PostgreSQL database with an admin, a staff user (cheap
 * password hashes) and an enterprise key; its runtime's clock can be moved. The tests of what needs the deployed
 * process (pages, the bundle, server.ts's HTTP options, roles, start-up) use `useProductionApp` (support.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@petstore/config";
import { type Clock, createLogger, openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll } from "vitest";
import { createDashboardApiFetch } from "../../src/server/dashboard-api.ts";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { createRouter } from "../../src/server/http/router.ts";
import { createOpsFetch } from "../../src/server/ops/handler.ts";
import { createRestFetch } from "../../src/server/rest/handler.ts";
import { ADMIN, PASSWORD, STAFF } from "./support.ts";

export interface InProcessApp {
  baseUrl: string;
  /** A generous enterprise key. */
  key: string;
  /** The server's runtime (`db.rt` too, for the tests written against `useProductionApp`). */
  rt: Runtime;
  db: { url: string; rt: Runtime };
  /** Moves the runtime's clock to `date` (undefined: real time). */
  setNow(date: Date | undefined): void;
  /** The runtime's current time. */
  now(): Date;
}

/** Configuration every in-process app starts from: the client address from X-Forwarded-For, cheap hashes. */
// Many sign-ins and signed-out calls at once and in a row: the dashboard pools (places, queue, the anonymous time
// share) have a test of their own (dashboard-admission.test.ts), so they never refuse here.
const BASE_ENV = {
  TRUST_PROXY: "1",
  LOG_LEVEL: "silent",
  PASSWORD_HASH_COST: "10",
  DASHBOARD_CONCURRENCY: "1000",
  DASHBOARD_ANONYMOUS_SHARE: "1000",
};

/**
 * Serves the REST fetch handler alone (as server.ts mounts /v1) on a runtime of its own on `databaseUrl`: another
 * instance of the API on the same database. @returns its base URL, its runtime and `close`.
 */
export async function startRestInstance(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ baseUrl: string; rt: Runtime; close(): Promise<void> }> {
  const config = loadConfig({ ...BASE_ENV, DATABASE_URL: databaseUrl, ...env });
  const rt = await openRuntime({ config, logger: createLogger("silent") });
  const server = http.createServer(
    fetchListener(
      createRestFetch(async () => rt),
      config.trustProxy,
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    rt,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rt.close();
    },
  };
}

/** What a test may put in place of the in-process app's parts (the router's `Routes`). */
export interface InProcessParts {
  /** The dashboard pools' clock (ms; performance.now unless given). */
  now?: () => number;
  /** The dashboard's pages (default: a 404 "no pages in process"). */
  dashboard?: http.RequestListener;
  /** The runtime's logger (default: silent). */
  logger?: ReturnType<typeof createLogger>;
}

/**
 * Starts the in-process app with `env` (configuration variables) and `parts` before the block's tests, stops it
 * after.
 */
export function useInProcessApp(env: Record<string, string> = {}, parts: InProcessParts = {}): InProcessApp {
  const app = {} as InProcessApp;
  let server: http.Server | undefined;
  let drop: (() => Promise<void>) | undefined;
  let now: Date | undefined;
  const clock: Clock = () => now ?? new Date();
  app.setNow = (date) => {
    now = date;
  };
  app.now = clock;

  beforeAll(async () => {
    const temp = await createMigratedDatabase("petstore_hardening");
    drop = () => temp.drop();
    // The port first: the configuration names the public URL.
    let listener: http.RequestListener = (_req, res) => res.writeHead(503).end();
    server = http.createServer((req, res) => listener(req, res));
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    app.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = loadConfig({
      ...BASE_ENV,
      DATABASE_URL: temp.url,
      PUBLIC_BASE_URL: app.baseUrl,
      ...env,
    });
    const rt = await openRuntime({ config, clock, logger: parts.logger ?? createLogger("silent") });
    app.rt = rt;
    app.db = { url: temp.url, rt };
    await rt.seed();
    for (const [email, role] of [
      [ADMIN, "admin"],
      [STAFF, "staff"],
    ] as const) {
      await rt.users.create({ email, name: role, role, password: PASSWORD }, "test");
    }
    app.key = (
      await rt.apiKeys.create(
        { name: "hardening", plan: "enterprise", perMinute: 100_000, perDay: 1_000_000 },
        "test",
      )
    ).key;
    listener = createRouter({
      role: config.serve,
      runtime: rt,
      api: fetchListener(
        createRestFetch(async () => rt),
        config.trustProxy,
      ),
      ops: fetchListener(createOpsFetch({ config, runtime: async () => rt }), config.trustProxy),
      // The dashboard without its Next process: its JSON API only.
      dashboard:
        parts.dashboard ??
        ((_req, res) => res.writeHead(404, { "Content-Type": "text/plain" }).end("no pages in process")),
      ...(parts.now ? { now: parts.now } : {}),
      dashboardApi: fetchListener(createDashboardApiFetch(rt), config.trustProxy),
    });
  }, 120_000);

  afterAll(async () => {
    if (server) {
      const closed = new Promise<void>((resolve) => server?.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    }
    await app.rt?.close();
    await drop?.();
  });
  return app;
}
