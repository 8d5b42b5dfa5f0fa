/**
 * Nothing anonymous can make the API's process do unbounded work (docs/contract.md sections 3 and 4), against
 * the production server:
 * - forged keys (well-formed, valid checksum, unknown) cost database look-ups only within the client address's
 *   anonymous budget, and a repeated one none at all (negative cache);
 * - dashboard traffic without a session (tRPC calls, the sign-in page) is limited per client address, with a JSON
 *   429 and Retry-After, while a signed-in user from the same address is not;
 * - /metrics needs its token in production, start-up refuses production without one, and a scrape is computed at
 *   most once a second;
 * - the 429 of an address over an anonymous budget is held before it is answered (ANONYMOUS_REFUSAL_DELAY_MS), in
 *   every place such budgets apply, while a real key from the same address is answered at once.
 */
import { generateApiKey, KEY_CACHE_TTL_MS } from "@petstore/core";
import { clearOfBoundary, sleep } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { startProductionServer } from "../instances/production-server.ts";
import { freePort } from "../support/common.ts";
import { STAFF, signIn, trpc, useProductionApp } from "./support.ts";

/** A key of the staging format with a correct checksum that no database holds. */
const forgedKey = () => generateApiKey("staging");

/**
 * Keys the server has read from the database so far: its `petstore_api_key_lookups_total` (a scrape is computed
 * at most once a second, hence the wait). NaN when the metric is missing, which fails every comparison.
 */
async function keysRead(app: ReturnType<typeof useProductionApp>): Promise<number> {
  await sleep(1_100);
  const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
  return Number(/^petstore_api_key_lookups_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

describe("forged API keys from one address", () => {
  // Refusals answered at once: these tests count look-ups; the hold has tests of its own below.
  const app = useProductionApp({ ANONYMOUS_PER_MINUTE: "10", ANONYMOUS_REFUSAL_DELAY_MS: "0" });

  it("cost database look-ups only within the address's anonymous budget", async () => {
    const real = () =>
      fetch(`${app.baseUrl}/v1/pets`, {
        headers: { authorization: `Bearer ${app.key}`, "x-forwarded-for": "203.0.113.50" },
      }).then((r) => r.status);
    const before = await keysRead(app);
    expect(await real()).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const r = await fetch(`${app.baseUrl}/v1/pets`, {
        headers: { authorization: `Bearer ${forgedKey()}`, "x-forwarded-for": "203.0.113.50" },
      });
      await r.body?.cancel();
      statuses.push(r.status);
    }
    // A key in use is not held back by its address's flood (it is verified from memory, refreshed meanwhile).
    expect(await real()).toBe(200);
    const after = await keysRead(app);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(90).fill(429));
    // The real key's first look-up, ten forged keys' at most, and a background refresh or two of the real key.
    expect(after - before).toBeLessThan(15);
    // Another address still has its budget.
    const other = await fetch(`${app.baseUrl}/v1/pets`, {
      headers: { authorization: `Bearer ${forgedKey()}`, "x-forwarded-for": "203.0.113.51" },
    });
    expect(other.status).toBe(401);
  });

  it("does not lock out a real key idle for longer than its cache while its address's budget is used up", async () => {
    const ip = "203.0.113.53";
    const real = () =>
      fetch(`${app.baseUrl}/v1/pets`, {
        headers: { authorization: `Bearer ${app.key}`, "x-forwarded-for": ip },
      }).then((r) => r.status);
    expect(await real()).toBe(200);
    const flood = await Promise.all(
      Array.from({ length: 15 }, () =>
        fetch(`${app.baseUrl}/v1/pets`, {
          headers: { authorization: `Bearer ${forgedKey()}`, "x-forwarded-for": ip },
        }).then((r) => r.status),
      ),
    );
    expect(flood).toContain(429);
    // The key's cache entry has expired: it is looked up again, without the address's used-up budget.
    await sleep(KEY_CACHE_TTL_MS + 500);
    expect(await real()).toBe(200);
  });

  it("remembers a key that failed, so repeating it costs no look-up", async () => {
    const forged = forgedKey();
    const ask = () =>
      fetch(`${app.baseUrl}/v1/pets`, {
        headers: { authorization: `Bearer ${forged}`, "x-forwarded-for": "203.0.113.52" },
      }).then((r) => r.status);
    const before = await keysRead(app);
    expect(await ask()).toBe(401);
    // Within the negative cache's 4 s: answered from memory (and counted in the address's bucket).
    for (let i = 0; i < 8; i++) expect([401, 429]).toContain(await ask());
    // One look-up; nine would show as nine reads at least.
    expect((await keysRead(app)) - before).toBeLessThan(5);
  });
});

describe("dashboard traffic without a session", () => {
  const app = useProductionApp({ DASHBOARD_ANONYMOUS_PER_MINUTE: "8" });

  it("is limited per client address with a JSON 429, while a signed-in user from the same address is not", async () => {
    // All within one minute window: a window that turned mid-test would grant a second budget.
    await clearOfBoundary(60_000, 10_000);
    const ip = "203.0.113.60";
    const token = await signIn(app, STAFF, ip); // one of the address's 8
    const calls = await Promise.all(
      Array.from({ length: 9 }, () => trpc(app, "query", "auth.me", undefined, { ip })),
    );
    const limited = calls.filter((r) => r.status === 429);
    expect(calls.filter((r) => r.status === 200)).toHaveLength(7);
    expect(limited).toHaveLength(2);
    for (const r of limited) {
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(r.body).toMatchObject({ code: "rate_limited", status: 429 });
    }
    const page = await fetch(`${app.baseUrl}/admin/sign-in`, { headers: { "x-forwarded-for": ip } });
    expect(page.status).toBe(429);
    const signedIn = await trpc(app, "query", "auth.me", undefined, { ip, token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ result: { data: { email: STAFF } } });
    // Another address is not affected.
    expect((await trpc(app, "query", "auth.me", undefined, { ip: "203.0.113.61" })).status).toBe(200);
  });
});

describe("/metrics in production", () => {
  const TOKEN = "metrics-token-0123456789abcdef";
  const app = useProductionApp({
    PETSTORE_ENV: "production",
    METRICS_TOKEN: TOKEN,
    METRICS_SCRAPES_PER_MINUTE: "12",
  });

  it("refuses a scrape without the token and computes a scrape at most once a second", async () => {
    const scrape = (authorization?: string) =>
      fetch(`${app.baseUrl}/metrics`, { headers: authorization ? { authorization } : {} });
    expect((await scrape()).status).toBe(401);
    const first = await scrape(`Bearer ${TOKEN}`);
    expect(first.status).toBe(200);
    const text = await first.text();
    // Traffic between two scrapes of the same second does not show: the second is the first one's text.
    await fetch(`${app.baseUrl}/healthz`);
    expect(await (await scrape(`Bearer ${TOKEN}`)).text()).toBe(text);
    await sleep(1100);
    expect(await (await scrape(`Bearer ${TOKEN}`)).text()).not.toBe(text);
  });

  it("answers at most METRICS_SCRAPES_PER_MINUTE scrapes a minute per client address, then a JSON 429", async () => {
    await clearOfBoundary(60_000, 10_000);
    const scrape = (ip: string) =>
      fetch(`${app.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}`, "x-forwarded-for": ip },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await scrape("203.0.113.70");
      await r.body?.cancel();
      statuses.push(r.status);
    }
    expect(statuses).toEqual([...Array(12).fill(200), ...Array(8).fill(429)]);
    const refused = await scrape("203.0.113.70");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ code: "rate_limited" });
    // The scraper at another address is not affected.
    expect((await scrape("203.0.113.71")).status).toBe(200);
  });

  it("will not start in production without a token, unless metrics are off", async () => {
    const port = await freePort();
    const refused = startProductionServer(port, {
      DATABASE_URL: app.db.url,
      PETSTORE_ENV: "production",
    });
    await expect(refused).rejects.toThrow(/METRICS_TOKEN/);
    const off = await startProductionServer(await freePort(), {
      DATABASE_URL: app.db.url,
      PETSTORE_ENV: "production",
      METRICS_ENABLED: "false",
    });
    try {
      expect((await fetch(`${off.baseUrl}/metrics`)).status).toBe(404);
    } finally {
      await off.stop();
    }
  });
});

describe("refusals of an address over an anonymous budget", () => {
  const DELAY_MS = 800;
  const TOKEN = "metrics-token-0123456789abcdef";
  const budgets = {
    ANONYMOUS_PER_MINUTE: "2",
    DASHBOARD_ANONYMOUS_PER_MINUTE: "2",
    METRICS_SCRAPES_PER_MINUTE: "2",
    ANONYMOUS_REFUSAL_DELAY_MS: String(DELAY_MS),
    METRICS_TOKEN: TOKEN,
  };
  const all = useProductionApp(budgets);
  const api = useProductionApp({ ...budgets, PETSTORE_SERVE: "api" });

  /** Status and milliseconds of one request from `ip`. */
  async function timed(url: string, ip: string, headers: Record<string, string> = {}) {
    const started = performance.now();
    const r = await fetch(url, { headers: { ...headers, "x-forwarded-for": ip } });
    await r.body?.cancel();
    return { status: r.status, ms: performance.now() - started, retryAfter: r.headers.get("retry-after") };
  }

  it.each([
    ["/v1 without a key", () => all, "/v1/pets", {}],
    ["/metrics", () => all, "/metrics", { authorization: `Bearer ${TOKEN}` }],
    ["the dashboard without a session", () => all, "/api/trpc/auth.me", {}],
    ["a dashboard path on an API-only instance", () => api, "/api/trpc/auth.me", {}],
  ] as const)("are held for the delay on %s, concurrent ones side by side", async (_, app, path, headers) => {
    await clearOfBoundary(60_000, 10_000);
    const ip = `203.0.113.${80 + Math.floor(Math.random() * 100)}`;
    const url = `${app().baseUrl}${path}`;
    // From another address: the path's first answer (Next loading the route) is not what is measured.
    await timed(url, `198.51.100.${Math.floor(Math.random() * 250)}`, headers);
    const first = [await timed(url, ip, headers), await timed(url, ip, headers)];
    for (const r of first) expect(r.status).not.toBe(429);
    for (const r of first) expect(r.ms).toBeLessThan(DELAY_MS / 2);
    const refused = await Promise.all(Array.from({ length: 20 }, () => timed(url, ip, headers)));
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(r.ms).toBeGreaterThanOrEqual(DELAY_MS - 50);
      // Held side by side, not one after another.
      expect(r.ms).toBeLessThan(3 * DELAY_MS);
    }
  });

  it("answer a real key from the same address at once meanwhile", async () => {
    await clearOfBoundary(60_000, 10_000);
    const ip = "203.0.113.79";
    const key = { authorization: `Bearer ${api.key}` };
    expect((await timed(`${api.baseUrl}/v1/pets`, ip, key)).status).toBe(200);
    const held = Promise.all(Array.from({ length: 10 }, () => timed(`${api.baseUrl}/v1/pets`, ip)));
    await sleep(DELAY_MS / 4);
    const real = await timed(`${api.baseUrl}/v1/pets`, ip, key);
    expect(real.status).toBe(200);
    expect(real.ms).toBeLessThan(DELAY_MS / 2);
    expect((await held).filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(8);
  });
});
