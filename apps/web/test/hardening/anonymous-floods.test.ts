/**
 * Nothing anonymous can make the API's process do unbounded work (docs/contract.md sections 3 and 4), against
 * the app served in process (in-process.ts, its clock standing still where a window must not turn):
 * - forged keys (well-formed, valid checksum, unknown) cost database look-ups only within the client address's
 *   anonymous budget, and a repeated one none at all (negative cache); a key with a bad checksum none ever;
 * - dashboard traffic without a session (tRPC calls, the sign-in page) is limited per client address, with a JSON
 *   429 and Retry-After, while a signed-in user from the same address is not;
 * - /metrics needs its token in production, and a scrape is computed at most once a second; without a token it is
 *   served to loopback clients only (the handler's own rules and its render clock: test/metrics/endpoint.test.ts).
 * That start-up refuses production without a token, and the holding of refusals in every place anonymous
 * budgets apply, are tested on the production server (production-server.test.ts).
 */
import { generateApiKey, KEY_CACHE_TTL_MS } from "@petstore/core";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { SCRAPE_REUSE_MS } from "../../src/server/metrics/endpoint.ts";
import { type InProcessApp, useInProcessApp } from "./in-process.ts";
import { STAFF, signIn, trpc } from "./support.ts";

/** `offsetMs` into the minute after the app's current time (a time the app's clock may move to). */
function startOfNextMinute(app: InProcessApp, offsetMs: number): Date {
  return new Date((Math.floor(app.now().getTime() / 60_000) + 1) * 60_000 + offsetMs);
}

/**
 * Moves the app's clock to 5 s into its next minute and makes Date.now() follow that standing clock until the
 * test ends: the window engine (@upstash/ratelimit) takes its minute from Date.now(), so a real minute turning
 * during a flood (a loaded machine takes seconds for one) would otherwise grant a second budget.
 */
function holdOneWindow(app: InProcessApp): void {
  app.setNow(startOfNextMinute(app, 5_000));
  const engineTime = vi.spyOn(Date, "now").mockImplementation(() => app.now().getTime());
  onTestFinished(() => engineTime.mockRestore());
}

/** A key of the staging format with a correct checksum that no database holds. */
const forgedKey = () => generateApiKey("staging");

/**
 * A monotonic clock for the app's parts that a test moves on: past `SCRAPE_REUSE_MS`, /metrics renders anew
 * without a second of waiting.
 */
function movableClock() {
  let skew = 0;
  return {
    now: () => performance.now() + skew,
    passScrapeReuse: () => {
      skew += SCRAPE_REUSE_MS;
    },
  };
}

/**
 * Keys the server has read from the database so far: its `petstore_api_key_lookups_total`, from a scrape rendered
 * anew (`clock` moved past the reuse of the last one). NaN when the metric is missing, which fails every comparison.
 */
async function keysRead(app: InProcessApp, clock: ReturnType<typeof movableClock>): Promise<number> {
  clock.passScrapeReuse();
  const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
  return Number(/^petstore_api_key_lookups_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

describe("forged API keys from one address", () => {
  // Refusals answered at once: these tests count look-ups; the hold has tests of its own below.
  const clock = movableClock();
  const app = useInProcessApp({ ANONYMOUS_PER_MINUTE: "10", ANONYMOUS_REFUSAL_DELAY_MS: "0" }, clock);

  it("cost database look-ups only within the address's anonymous budget", async () => {
    const real = () =>
      fetch(`${app.baseUrl}/v1/pets`, {
        headers: { authorization: `Bearer ${app.key}`, "x-forwarded-for": "203.0.113.50" },
      }).then((r) => r.status);
    const before = await keysRead(app, clock);
    const engineTime = vi.spyOn(Date, "now").mockImplementation(() => app.now().getTime());
    app.setNow(startOfNextMinute(app, 5_000));
    const statuses: number[] = [];
    try {
      expect(await real()).toBe(200);
      for (let i = 0; i < 100; i++) {
        const r = await fetch(`${app.baseUrl}/v1/pets`, {
          headers: { authorization: `Bearer ${forgedKey()}`, "x-forwarded-for": "203.0.113.50" },
        });
        await r.body?.cancel();
        statuses.push(r.status);
      }
      // A key in use is not held back by its address's flood (it is verified from memory, refreshed meanwhile).
      expect(await real()).toBe(200);
    } finally {
      engineTime.mockRestore();
    }
    const after = await keysRead(app, clock);
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
    // One minute window throughout: the next one, 5 s in, never back.
    app.setNow(startOfNextMinute(app, 5_000));
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
    app.setNow(new Date(app.now().getTime() + KEY_CACHE_TTL_MS + 500));
    expect(await real()).toBe(200);
  });

  it("refuses a key with a bad checksum without a look-up of any kind", async () => {
    const ip = "203.0.113.54";
    const claims = vi.spyOn(app.rt.apiKeys, "claim");
    onTestFinished(() => claims.mockRestore());
    const before = app.rt.apiKeys.keysRead();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const key = forgedKey();
      const r = await fetch(`${app.baseUrl}/v1/pets/1`, {
        headers: {
          authorization: `Bearer ${key.slice(0, -1)}${key.endsWith("0") ? "1" : "0"}`,
          "x-forwarded-for": ip,
        },
      });
      await r.body?.cancel();
      statuses.push(r.status);
    }
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    expect(claims).not.toHaveBeenCalled();
    expect(app.rt.apiKeys.keysRead()).toBe(before);
    // The same count moves for a key with a correct checksum that no database holds.
    const unknown = await fetch(`${app.baseUrl}/v1/pets/1`, {
      headers: { authorization: `Bearer ${forgedKey()}`, "x-forwarded-for": "203.0.113.55" },
    });
    expect(unknown.status).toBe(401);
    expect(claims).toHaveBeenCalledTimes(1);
    expect(app.rt.apiKeys.keysRead()).toBe(before + 1);
  });

  it("remembers a key that failed, so repeating it costs no look-up", async () => {
    const forged = forgedKey();
    const ask = () =>
      fetch(`${app.baseUrl}/v1/pets`, {
        headers: { authorization: `Bearer ${forged}`, "x-forwarded-for": "203.0.113.52" },
      }).then((r) => r.status);
    const before = await keysRead(app, clock);
    expect(await ask()).toBe(401);
    // Within the negative cache's 4 s: answered from memory (and counted in the address's bucket).
    for (let i = 0; i < 8; i++) expect([401, 429]).toContain(await ask());
    // One look-up; nine would show as nine reads at least.
    expect((await keysRead(app, clock)) - before).toBeLessThan(5);
  });
});

describe("dashboard traffic without a session", () => {
  // Refusals answered at once, as above.
  const app = useInProcessApp({ DASHBOARD_ANONYMOUS_PER_MINUTE: "8", ANONYMOUS_REFUSAL_DELAY_MS: "0" });

  it("is limited per client address with a JSON 429, while a signed-in user from the same address is not", async () => {
    holdOneWindow(app);
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

describe("/metrics without a token", () => {
  const app = useInProcessApp({ ANONYMOUS_REFUSAL_DELAY_MS: "0" });

  it("is served to this host's loopback clients only: any other address gets a JSON 403", async () => {
    const scrape = (headers: Record<string, string>) => fetch(`${app.baseUrl}/metrics`, { headers });
    const outside = await scrape({ "x-forwarded-for": "203.0.113.80" });
    expect(outside.status).toBe(403);
    expect(outside.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await outside.json()).toMatchObject({ code: "forbidden", status: 403 });
    const local = await scrape({});
    expect(local.status).toBe(200);
    expect(await local.text()).toMatch(/^petstore_ready 1$/m);
  });
});

describe("/metrics in production", () => {
  const TOKEN = "metrics-token-0123456789abcdef";
  const clock = movableClock();
  const app = useInProcessApp(
    {
      PETSTORE_ENV: "production",
      METRICS_TOKEN: TOKEN,
      METRICS_SCRAPES_PER_MINUTE: "12",
      ANONYMOUS_REFUSAL_DELAY_MS: "0",
    },
    clock,
  );

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
    clock.passScrapeReuse();
    expect(await (await scrape(`Bearer ${TOKEN}`)).text()).not.toBe(text);
  });

  it("answers at most METRICS_SCRAPES_PER_MINUTE scrapes a minute per client address, then a JSON 429", async () => {
    holdOneWindow(app);
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
});
