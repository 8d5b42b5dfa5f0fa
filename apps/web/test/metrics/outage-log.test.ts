/**
 * What an outage of the database writes, in process: one log line when the database goes down and one when it is
 * back (with how many requests it cost), a per-dependency counter of refused requests and a gauge on /metrics,
 * and for each refused request its one request line with the error code, never an error's stack; readiness
 * checks and the analytics flushes (every 5 s in a server) during the outage add no lines. The database is reached
 * through a TCP proxy the test closes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { createOpsFetch } from "../../src/server/ops/handler.ts";
import { readinessOf } from "../../src/server/readiness.ts";
import { createRestFetch } from "../../src/server/rest/handler.ts";
import { collectLogLines } from "../support/log-lines.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";

type Line = Record<string, unknown> & { msg?: string };
const { lines, sink } = collectLogLines<Line>();

const proxy = new TcpProxy(5432);
let database: TemporaryDatabase | undefined;
let rt: Runtime;
let server: http.Server;
let base = "";
let key = "";
let ops: (request: Request) => Promise<Response>;

beforeAll(async () => {
  await proxy.open();
  database = await createMigratedDatabase("petstore_outage_log");
  const url = new URL(database.url);
  url.port = String(proxy.port);
  // Flushed by the test, never by the recorder's timer.
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    LOG_LEVEL: "info",
    ANALYTICS_FLUSH_INTERVAL_MS: "60000",
    // The scrapes below come from no address: who may scrape is endpoint.test.ts's subject.
    METRICS_PUBLIC: "true",
  });
  rt = await openRuntime({ config, logger: createLogger("info", sink) });
  await rt.seed();
  key = (
    await rt.apiKeys.create({ name: "outage", plan: "enterprise", perMinute: 10_000, perDay: 100_000 }, "t")
  ).key;
  server = http.createServer(
    fetchListener(
      createRestFetch(async () => rt),
      0,
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ops = createOpsFetch({ config, runtime: async () => rt });
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await rt?.close();
  await proxy.cut();
  await database?.drop();
});

/** The value of the sample `series` (a name and its labels) on /metrics. */
async function sample(series: string): Promise<number | undefined> {
  const text = await (await ops(new Request("http://x/metrics"))).text();
  const m = new RegExp(`^${series.replace(/[{}]/g, "\\$&")} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
}

describe("a database outage", () => {
  it("logs its start and its end once, counts refused requests, and writes no stack, however often usage is flushed", async () => {
    const pets = () => fetch(`${base}/v1/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    expect((await pets()).status).toBe(200);
    const before = lines.length;

    await proxy.cut();
    const REQUESTS = 12;
    for (let i = 0; i < REQUESTS; i++) {
      const r = await pets();
      expect(r.status).toBe(503);
      expect(((await r.json()) as { code: string }).code).toBe("service_unavailable");
    }
    for (let i = 0; i < 3; i++) expect((await readinessOf(rt)).status).toBe("unavailable");
    // The counted requests stay in memory; each failed flush is no line of its own.
    for (let i = 0; i < 3; i++) await rt.analytics?.flush();
    expect(rt.analytics?.flushFailures).toBe(3);
    expect(await sample("petstore_database_up")).toBe(0);
    expect(await sample('petstore_dependency_refused_requests_total{dependency="database"}')).toBe(REQUESTS);

    await proxy.open();
    expect((await readinessOf(rt)).status).toBe("ok");
    expect((await pets()).status).toBe(200);
    await rt.analytics?.flush();
    expect(rt.analytics?.flushFailures).toBe(3);

    const outage = lines.slice(before);
    const requestLines = outage.filter((l) => l.msg === "request");
    const refused = requestLines.filter((l) => l.status === 503);
    expect(refused).toHaveLength(REQUESTS);
    for (const l of refused) expect(l.code).toBe("service_unavailable");
    // Nothing but request lines, and the two state changes.
    const others = outage.filter((l) => l.msg !== "request");
    expect(others.map((l) => [l.dependency, l.state])).toEqual([
      ["database", "down"],
      ["database", "up"],
    ]);
    expect(others[1]?.refusedRequests).toBe(REQUESTS);
    expect(JSON.stringify(outage)).not.toContain('"stack"');
  });
});
