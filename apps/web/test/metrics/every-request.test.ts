/**
 * One log line and the HTTP metrics for every request the process answers, in process: the router of
 * src/server/http/router.ts over the real REST app, operational endpoints and dashboard API, with a stand-in for
 * the Next process (a page answer) and a routes manifest of three pages for the page patterns. Each request
 * gets one `request` line and one counter sample per route label: tRPC by procedure (a batch under each of its
 * procedures, on one line), pages by route pattern, probes by path, a preflight and a 405 by their path's route,
 * Next's static files as `static` at debug; `/v1` keeps its own single line.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDashboardApiFetch } from "../../src/server/dashboard-api.ts";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { pageRoutes } from "../../src/server/http/page-routes.ts";
import { createRouter } from "../../src/server/http/router.ts";
import { getMetrics } from "../../src/server/metrics/registry.ts";
import { createOpsFetch } from "../../src/server/ops/handler.ts";
import { createRestFetch } from "../../src/server/rest/handler.ts";
import { collectLogLines } from "../support/log-lines.ts";
import { countRequests } from "./requests-counter.ts";

interface Line {
  level: number;
  msg?: string;
  route?: string;
  status?: number;
  method?: string;
  requestId?: string;
}

const { lines, sink } = collectLogLines<Line>();

/** As Next's `.next/routes-manifest.json` lists them. */
const MANIFEST = {
  staticRoutes: [
    { page: "/admin", regex: "^/admin(?:/)?$" },
    { page: "/docs", regex: "^/docs(?:/)?$" },
  ],
  dynamicRoutes: [{ page: "/admin/keys/[id]", regex: "^/admin/keys/([^/]+?)(?:/)?$" }],
};

let rt: Runtime;
let server: http.Server;
let base = "";
let drop: () => Promise<void>;

beforeAll(async () => {
  // The process has one registry, which may hold the counts of files this worker ran before: start from zero.
  getMetrics()?.registry.resetMetrics();
  const temp = await createMigratedDatabase("petstore_every_request");
  drop = () => temp.drop();
  const config = loadConfig({
    DATABASE_URL: temp.url,
    LOG_LEVEL: "debug",
    ANALYTICS_ENABLED: "false",
    DASHBOARD_CONCURRENCY: "1000",
    DASHBOARD_ANONYMOUS_SHARE: "1000",
  });
  rt = await openRuntime({ config, logger: createLogger("debug", sink) });
  const nextStandIn: http.RequestListener = (_req, res) =>
    res.writeHead(200, { "Content-Type": "text/html" }).end("<p>page</p>");
  server = http.createServer(
    createRouter({
      role: "all",
      runtime: rt,
      api: fetchListener(
        createRestFetch(async () => rt),
        0,
      ),
      ops: fetchListener(createOpsFetch({ config, runtime: async () => rt }), 0),
      dashboard: nextStandIn,
      dashboardApi: fetchListener(createDashboardApiFetch(rt), 0),
      pages: pageRoutes(MANIFEST),
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await rt?.close();
  await drop?.();
});

let sent = 0;

/** Sends one request and reads its answer; @returns the status and the `request` lines it was logged with. */
async function send(path: string, init: RequestInit = {}): Promise<{ status: number; logged: Line[] }> {
  const requestId = crypto.randomUUID();
  sent++;
  const before = new Set(lines);
  const answer = await fetch(`${base}${path}`, {
    ...init,
    headers: { "X-Request-Id": requestId, ...(init.headers as Record<string, string>) },
  });
  await answer.arrayBuffer();
  // The line is written when the response closes, just after the client has the answer.
  const logged = await vi.waitFor(
    () => {
      const fresh = lines.filter((l) => !before.has(l) && l.msg === "request");
      if (fresh.length === 0) throw new Error(`no request line for ${path}`);
      return fresh;
    },
    { timeout: 5_000, interval: 10 },
  );
  return { status: answer.status, logged };
}

describe("every request is logged and counted once", () => {
  it("a tRPC call under its procedure", async () => {
    const { status, logged } = await send("/api/trpc/auth.me");
    expect(logged).toMatchObject([{ method: "GET", route: "trpc:auth.me", status, level: 30 }]);
    expect(await countRequests({ route: "trpc:auth.me", method: "GET", status: String(status) })).toBe(1);
  });

  it("a batch on one line, counted under each procedure; an unknown name as trpc:unknown", async () => {
    const { status, logged } = await send(
      `/api/trpc/auth.me,categories.list,no.such?batch=1&input=${encodeURIComponent("{}")}`,
    );
    expect(logged).toMatchObject([
      { method: "GET", route: "trpc:auth.me,trpc:categories.list,trpc:unknown", status },
    ]);
    expect(await countRequests({ route: "trpc:categories.list", status: String(status) })).toBe(1);
    expect(await countRequests({ route: "trpc:unknown" })).toBe(1);
    expect(await countRequests({ route: "trpc:auth.me" })).toBe(2);
  });

  it("pages by route pattern, /docs, and a path no page has as unmatched", async () => {
    for (const [path, route] of [
      ["/admin/keys/42", "/admin/keys/[id]"],
      ["/admin/keys/43?tab=usage", "/admin/keys/[id]"],
      ["/docs", "/docs"],
      ["/wp-login.php", "unmatched"],
    ] as const) {
      const { status, logged } = await send(path);
      expect(logged).toMatchObject([{ method: "GET", route, status }]);
    }
    expect(await countRequests({ route: "/admin/keys/[id]", method: "GET", status: "200" })).toBe(2);
    expect(await countRequests({ route: "/docs" })).toBe(1);
    expect(lines.some((l) => l.route?.includes("42") || l.route?.includes("wp-login"))).toBe(false);
  });

  it("a preflight and a 405 under their path's route", async () => {
    const preflight = await send("/api/trpc/pets.create", {
      method: "OPTIONS",
      headers: { Origin: "https://elsewhere.example", "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.logged).toMatchObject([{ method: "OPTIONS", route: "trpc:pets.create" }]);
    const refused = await send("/admin", { method: "PROPFIND" });
    expect(refused.status).toBe(405);
    expect(refused.logged).toMatchObject([{ route: "/admin", status: 405 }]);
    expect(await countRequests({ route: "/admin", method: "other", status: "405" })).toBe(1);
  });

  it("probes by path, the audit download by its path", async () => {
    const probe = await send("/healthz");
    expect(probe.logged).toMatchObject([{ route: "/healthz", status: probe.status }]);
    const download = await send("/api/audit/export");
    expect(download.logged).toMatchObject([{ route: "/api/audit/export", status: download.status }]);
    expect(await countRequests({ route: "/healthz" })).toBe(1);
  });

  it("Next's static files as one label, logged at debug only", async () => {
    const file = await send("/_next/static/chunks/app-1234.js");
    expect(file.logged).toMatchObject([{ route: "static", level: 20 }]);
    expect(await countRequests({ route: "static" })).toBe(1);
  });

  it("/v1 keeps its one line", async () => {
    const { logged } = await send("/v1/pets");
    expect(logged).toMatchObject([{ route: "/v1/pets", status: 401 }]);
    expect(await countRequests({ route: "/v1/pets" })).toBe(1);
  });

  it("no request has two lines", async () => {
    // The earlier answers all closed before this one was sent.
    await send("/healthz");
    expect(lines.filter((l) => l.msg === "request")).toHaveLength(sent);
  });
});
