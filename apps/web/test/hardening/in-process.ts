/**
 * `useInProcessApp`: what server.ts builds (router, REST app, operational endpoints, the dashboard's JSON API; no
 * Next process, so no pages) served in the test process on a hardening database, with a movable clock.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock, createLogger, Runtime } from "@petstore/core";
import { afterAll, beforeAll } from "vitest";
import { createDashboardApiFetch } from "../../src/server/dashboard-api.ts";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { createRouter } from "../../src/server/http/router.ts";
import { createOpsFetch } from "../../src/server/ops/handler.ts";
import { createRestFetch } from "../../src/server/rest/handler.ts";
import { openTestDatabase } from "../support/database.ts";
import { HARDENING_DATABASE } from "./support.ts";

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

/** What a test may put in place of the in-process app's parts (the router's `Routes`). */
export interface InProcessParts {
  /** The monotonic clock (ms) of the dashboard pools and of /metrics' render reuse (performance.now unless given). */
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
    // The port first: the configuration names the public URL.
    let listener: http.RequestListener = (_req, res) => res.writeHead(503).end();
    server = http.createServer((req, res) => listener(req, res));
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    app.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const db = await openTestDatabase({
      ...HARDENING_DATABASE,
      env: { ...BASE_ENV, PUBLIC_BASE_URL: app.baseUrl, ...env },
      clock,
      ...(parts.logger ? { logger: parts.logger } : {}),
    });
    drop = () => db.drop();
    const { rt } = db;
    const config = rt.config;
    Object.assign(app, { rt, db, key: db.key });
    listener = createRouter({
      role: config.serve,
      runtime: rt,
      api: fetchListener(
        createRestFetch(async () => rt),
        config.trustProxy,
      ),
      ops: fetchListener(
        createOpsFetch({ config, runtime: async () => rt, ...(parts.now ? { now: parts.now } : {}) }),
        config.trustProxy,
      ),
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
    await drop?.();
  });
  return app;
}
