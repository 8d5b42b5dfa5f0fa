/**
 * GET /metrics on the production server (`tsx server.ts` over the Next build, PostgreSQL + Redis), read with a
 * Prometheus text-format parser as a scraper would: request counts by route/method/status and the latency
 * histogram after real /v1 traffic (200, 401, 404, 429), the limiter's decisions and the ban gauge after a ban,
 * the health gauges (and the store at 0 while Redis is unreachable), process metrics; the bearer token; that
 * scrapes cost no rate limit and are counted under their path like the probes; /v1/metrics is not it. That metrics switched off
 * answer 404 is tested with the production server of test/hardening/production-server.test.ts.
 */
import { randomUUID } from "node:crypto";
import net from "node:net";
import { eventually } from "@petstore/core/testing";
import parsePrometheusTextFormat, { type MetricFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startProductionServer,
} from "../instances/production-server.ts";
import { clearOfBoundary, deleteKeys, MINUTE_MS, REDIS_URL } from "../ratelimit/support.ts";
import { freePort } from "../support/common.ts";

const PREFIX = `petstore-test:metrics:${process.pid}:${randomUUID().slice(0, 8)}`;
const TOKEN = `metrics-token-${randomUUID()}`;

interface Scrape {
  status: number;
  headers: Headers;
  text: string;
  /** Metric families by name; a histogram `h` also as plain families `h_bucket`, `h_sum`, `h_count`. */
  families: Map<string, MetricFamily>;
}

/**
 * Parses an exposition. parse-prometheus-text-format merges the series of a histogram that has labels into one
 * and drops their labels, so the text is parsed twice: as is (families and their types), and without the
 * histograms' TYPE lines, which makes each of `_bucket`, `_sum` and `_count` a family of labelled samples.
 */
function parseExposition(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  for (const f of parsePrometheusTextFormat(text.replace(/^# TYPE \S+ histogram$/gm, ""))) {
    // Untyped, the series of one histogram come in groups (all `_bucket`, `_sum`, `_count` of each route).
    const seen = families.get(f.name);
    if (seen) seen.metrics.push(...f.metrics);
    else families.set(f.name, f);
  }
  for (const f of parsePrometheusTextFormat(text)) if (f.type === "HISTOGRAM") families.set(f.name, f);
  return families;
}

async function scrape(baseUrl: string, authorization?: string): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`, {
    headers: authorization ? { authorization } : {},
  });
  const text = await response.text();
  const families = response.status === 200 ? parseExposition(text) : new Map<string, MetricFamily>();
  return { status: response.status, headers: response.headers, text, families };
}

/** The value of the sample of `name` whose labels include `labels` (undefined when there is none). */
function value(s: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  const sample = s.families
    .get(name)
    ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample?.value === undefined ? undefined : Number(sample.value);
}

const get = (baseUrl: string, path: string, key?: string) =>
  fetch(`${baseUrl}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }).then(async (r) => ({
    status: r.status,
    headers: r.headers,
    body: (await r.json()) as { code?: string },
  }));

describe("GET /metrics on the production server", () => {
  let db: PreparedDatabase;
  let server: ProductionServer | undefined;
  let base: string;
  const auth = `Bearer ${TOKEN}`;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await prepareDatabase("petstore_metrics");
    server = await startProductionServer(await freePort(), {
      DATABASE_URL: db.url,
      REDIS_URL,
      RATE_LIMIT_PREFIX: PREFIX,
      METRICS_TOKEN: TOKEN,
      // /v1 and /metrics only: no dashboard process to start.
      PETSTORE_SERVE: "api",
      ANONYMOUS_PER_MINUTE: "20",
      // A key denied more than twice within the ban window is banned.
      BAN_THRESHOLD: "2",
    });
    base = server.baseUrl;
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
    await deleteKeys(PREFIX);
  });

  const issue = async (perMinute: number) =>
    (
      await db.rt.apiKeys.create(
        { name: `metrics ${perMinute}/min`, plan: "enterprise", perMinute, perDay: 100_000 },
        "test",
      )
    ).key;

  it("refuses a scrape without the token or with a wrong one (401 JSON, no-store)", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-of-some-length", `Basic ${TOKEN}`, TOKEN]) {
      const s = await scrape(base, authorization);
      expect(s.status, String(authorization)).toBe(401);
      expect(JSON.parse(s.text)).toMatchObject({ code: "unauthorized", status: 401 });
      expect(s.headers.get("cache-control")).toBe("no-store");
      expect(s.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(s.text).not.toContain("petstore_");
    }
  });

  it("counts /v1 requests by route, method and status with a latency histogram, and limiter decisions", async () => {
    await clearOfBoundary(MINUTE_MS, 10_000);
    const good = await issue(1_000);
    const limited = await issue(2);
    for (let i = 0; i < 3; i++) expect((await get(base, "/v1/pets?limit=1", good)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await get(base, "/v1/pets?limit=1")).status).toBe(401);
    expect((await get(base, "/v1/no-such-thing", good)).status).toBe(404);
    const codes: string[] = [];
    for (let i = 0; i < 10 && codes.at(-2) !== "key_banned"; i++)
      codes.push((await get(base, "/v1/pets?limit=1", limited)).body.code ?? "ok");
    expect(codes.slice(0, 2)).toEqual(["ok", "ok"]);
    expect(codes).toContain("rate_limited");
    expect(codes.at(-1)).toBe("key_banned");
    const tooMany = codes.filter((c) => c !== "ok").length;

    const s = await scrape(base, auth);
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(s.headers.get("cache-control")).toBe("no-store");

    const requests = "petstore_http_requests_total";
    expect(s.families.get(requests)?.type).toBe("COUNTER");
    const pets = { route: "/v1/pets", method: "GET" };
    // The 3 good calls, the 2 admitted calls of the limited key, plus the server's own warm-up, if any.
    expect(value(s, requests, { ...pets, status: "200" })).toBeGreaterThanOrEqual(5);
    expect(value(s, requests, { ...pets, status: "401" })).toBe(2);
    expect(value(s, requests, { ...pets, status: "429" })).toBe(tooMany);
    expect(value(s, requests, { route: "unmatched", method: "GET", status: "404" })).toBe(1);
    // Every request is counted under a route label, never its raw path: the probes the start-up polled under theirs.
    const routes = new Set(s.families.get(requests)?.metrics.map((m) => m.labels?.route));
    expect([...routes].sort()).toEqual(["/metrics", "/readyz", "/v1/pets", "unmatched"]);

    const latency = "petstore_http_request_duration_seconds";
    expect(s.families.get(latency)?.type).toBe("HISTOGRAM");
    expect(s.text).toContain(`# TYPE ${latency} histogram`);
    const petsTotal = (s.families.get(requests)?.metrics ?? [])
      .filter((m) => m.labels?.route === "/v1/pets")
      .reduce((sum, m) => sum + Number(m.value), 0);
    const route = { route: "/v1/pets" };
    expect(value(s, `${latency}_count`, route)).toBe(petsTotal);
    expect(value(s, `${latency}_bucket`, { ...route, le: "+Inf" })).toBe(petsTotal);
    expect(value(s, `${latency}_sum`, route)).toBeGreaterThan(0);
    const bounds = (s.families.get(`${latency}_bucket`)?.metrics ?? [])
      .filter((m) => m.labels?.route === "/v1/pets")
      .map((m) => m.labels?.le);
    expect(bounds).toEqual([
      "0.001",
      "0.0025",
      "0.005",
      "0.01",
      "0.025",
      "0.05",
      "0.1",
      "0.25",
      "0.5",
      "1",
      "2.5",
      "5",
      "+Inf",
    ]);
    // Cumulative: each bucket holds at least the one before it.
    const counts = bounds.map((le) => value(s, `${latency}_bucket`, { ...route, le: le ?? "" }) ?? -1);
    expect(counts).toEqual([...counts].sort((x, y) => x - y));

    const decisions = "petstore_rate_limit_decisions_total";
    expect(value(s, decisions, { decision: "admitted" })).toBeGreaterThanOrEqual(3 + 2 + 2 + 1);
    expect(value(s, decisions, { decision: "rate_limited" })).toBe(
      codes.filter((c) => c === "rate_limited").length,
    );
    expect(value(s, decisions, { decision: "banned" })).toBe(codes.filter((c) => c === "key_banned").length);
    expect(value(s, decisions, { decision: "fail_open" })).toBe(0);
    expect(value(s, "petstore_rate_limit_bans_total")).toBe(1);
    expect(value(s, "petstore_rate_limit_store_failures_total")).toBe(0);

    expect(value(s, "petstore_database_up")).toBe(1);
    expect(value(s, "petstore_rate_limit_store_up", { store: "redis" })).toBe(1);
    // The ban reaches the database shortly after the banning request (the limiter's onBan callback).
    await eventually(async () => {
      expect(value(await scrape(base, auth), "petstore_rate_limit_active_bans")).toBe(1);
    }, 5_000);

    // Process metrics of prom-client's collectDefaultMetrics.
    expect(value(s, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(value(s, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
  });

  it("costs no rate limit: many scrapes leave the anonymous bucket untouched and get no limit headers", async () => {
    await clearOfBoundary(MINUTE_MS, 10_000);
    const before = await get(base, "/v1/pets?limit=1");
    const remaining = Number(before.headers.get("x-ratelimit-remaining"));
    expect(before.headers.get("x-ratelimit-limit")).toBe("20");
    for (let i = 0; i < 30; i++) {
      const s = await fetch(`${base}/metrics`, { headers: { authorization: auth } });
      await s.text();
      expect(s.status).toBe(200);
      expect(s.headers.get("x-ratelimit-limit")).toBeNull();
    }
    const after = await get(base, "/v1/pets?limit=1");
    expect(Number(after.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);
  });

  it("is not part of the public API: /v1/metrics is a 404 of the REST API", async () => {
    const r = await get(base, "/v1/metrics");
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
  });
});

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("GET /metrics without a token while Redis is unreachable", () => {
  let db: PreparedDatabase;
  let down: ProductionServer | undefined;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await prepareDatabase("petstore_metrics");
    down = await startProductionServer(await freePort(), {
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${await deadPort()}`,
      RATE_LIMIT_STORE_TIMEOUT_MS: "300",
      PETSTORE_SERVE: "api",
    });
  }, 900_000);

  afterAll(async () => {
    await down?.stop();
    await db?.drop();
  });

  it("reports the store down (0) and the requests let through unchecked, the database up", async () => {
    const base = down?.baseUrl ?? "";
    expect((await get(base, "/v1/pets?limit=1")).status).toBe(401);
    const s = await scrape(base);
    expect(s.status).toBe(200);
    expect(value(s, "petstore_rate_limit_store_up", { store: "redis" })).toBe(0);
    expect(value(s, "petstore_database_up")).toBe(1);
    expect(value(s, "petstore_rate_limit_decisions_total", { decision: "fail_open" })).toBeGreaterThanOrEqual(
      1,
    );
    expect(value(s, "petstore_rate_limit_store_failures_total")).toBeGreaterThanOrEqual(1);
    expect(value(s, "petstore_http_requests_total", { route: "/v1/pets", status: "401" })).toBe(1);
  });
});
