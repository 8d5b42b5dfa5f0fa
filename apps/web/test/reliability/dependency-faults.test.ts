/**
 * Faults of the production server's dependencies, injected by TCP proxies in front of PostgreSQL and Redis, on
 * one server reaching both through them (each test heals what it broke, and waits until the server serves again).
 *
 * PostgreSQL (docs/operations.md "Timeouts and limits"): with DATABASE_CONNECT_TIMEOUT_MS=1000 and
 * DATABASE_STATEMENT_TIMEOUT_MS=1500 (client read timeout 2.5 s) no request waits longer than that budget: REST
 * and tRPC answer 503 `service_unavailable` with Retry-After (never 500, never the anonymous bucket's 429),
 * dashboard pages a styled 503 page, /readyz 503; and the instance serves again within 5 s of the database
 * healing, even when its old connections stay silent. Creates refused during an outage are never committed
 * later. (An exhausted pool: exhausted-pool.test.ts.)
 *
 * Rate-limit store (docs/contract.md section 3 "Store"): with RATE_LIMIT_STORE_TIMEOUT_MS=500 and a 1 s breaker
 * cool-down, after a few requests that wait the timeout the breaker opens and requests fail open at once
 * (logged and counted); /readyz stays 200, marked degraded; the silent connection is replaced; and within 5 s of
 * Redis answering again the breaker closes and limits apply again.
 */
import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { msUntil, signIn, sleep, type Timed, timed, useFaultyServer } from "./support.ts";

/** The longest a request may take while the database does not answer: the client read timeout and slack. */
const BUDGET_MS = 4000;
const STORE_TIMEOUT_MS = 500;

const ENV = {
  DATABASE_CONNECT_TIMEOUT_MS: "1000",
  DATABASE_STATEMENT_TIMEOUT_MS: "1500",
  // More connections than the 16 concurrent clients of the store tests: on a busy machine a wait for a free
  // connection past the 1 s bound would be a 503 that has nothing to do with the store.
  DATABASE_POOL_SIZE: "20",
  RATE_LIMIT_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
  RATE_LIMIT_BREAKER_COOLDOWN_MS: "1000",
  // Low, so that a keyed request refused as anonymous would show as a 429.
  ANONYMOUS_PER_MINUTE: "3",
};

function expectUnavailable(r: Timed, what: string) {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBe(503);
  expect(r.ms, what).toBeLessThan(BUDGET_MS);
  expect(Number(r.headers.get("retry-after")), what).toBeGreaterThanOrEqual(1);
}

/** GETs from `workers` concurrent clients for `ms`. */
async function load(url: string, key: string, workers: number, ms: number): Promise<Timed[]> {
  const until = performance.now() + ms;
  const answers: Timed[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) {
        answers.push(await timed(url, { headers: { authorization: `Bearer ${key}` } }));
      }
    }),
  );
  return answers;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;

async function readiness(baseUrl: string) {
  const r = await timed(`${baseUrl}/readyz`);
  return { status: r.status, body: JSON.parse(r.text || "{}") };
}

describe("dependency faults (production server through proxies to PostgreSQL and Redis)", () => {
  const f = useFaultyServer({ postgres: true, redis: true }, ENV);

  /** Whether a fresh key of 3 a minute is denied its 4th request (the store counts again). */
  async function limitsApply(): Promise<boolean> {
    const { key } = await f.db.rt.apiKeys.create(
      { name: "limits", plan: "enterprise", perMinute: 3, perDay: 100 },
      "test",
    );
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })).status,
      );
    }
    return statuses[3] === 429;
  }

  describe("PostgreSQL blackholed, then healed", () => {
    it("answers 503 within the budget everywhere while it is silent, and serves again within 5 s of healing", async () => {
      const cookie = await signIn(f.baseUrl);
      const auth = { authorization: `Bearer ${f.key}` };
      expect((await timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: auth })).status).toBe(200);
      f.postgres?.blackhole();
      try {
        const [list, create, trpc, page, ...burst] = await Promise.all([
          timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: auth }),
          timed(`${f.baseUrl}/v1/pets`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json", "idempotency-key": "blackhole-1" },
            body: JSON.stringify({ name: "Lost", categoryId: f.categoryId }),
          }),
          timed(`${f.baseUrl}/api/trpc/auth.me`, { headers: { cookie } }),
          timed(`${f.baseUrl}/admin`, { headers: { cookie, accept: "text/html" } }),
          ...Array.from({ length: 20 }, () => timed(`${f.baseUrl}/v1/pets/1`, { headers: auth })),
        ]);
        expectUnavailable(list as Timed, "listPets");
        expect(JSON.parse((list as Timed).text)).toMatchObject({ code: "service_unavailable", status: 503 });
        expectUnavailable(create as Timed, "createPet");
        expectUnavailable(trpc as Timed, "tRPC");
        expect(JSON.parse((trpc as Timed).text).error.data).toMatchObject({ appCode: "service_unavailable" });
        expectUnavailable(page as Timed, "dashboard page");
        expect((page as Timed).headers.get("content-type")).toMatch(/^text\/html/);
        expect((page as Timed).text).toContain("temporarily unavailable");
        expect((page as Timed).headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
        for (const r of burst) expectUnavailable(r, "getPet");
        // /readyz reuses a check for up to a second, and a check waits at most a second.
        const notReady = await msUntil(async () => (await timed(`${f.baseUrl}/readyz`)).status === 503);
        expect(notReady).toBeLessThan(2500);
      } finally {
        f.postgres?.heal();
      }
      const recovery = await msUntil(
        async () => (await timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: auth })).status === 200,
      );
      expect(recovery).toBeLessThan(5000);
      expect((await timed(`${f.baseUrl}/readyz`)).status).toBe(200);
      expect((await timed(`${f.baseUrl}/admin`, { headers: { cookie, accept: "text/html" } })).status).toBe(
        200,
      );
    });
  });

  describe("PostgreSQL refusing connections, then back", () => {
    it("answers a keyed client 503, never the anonymous bucket's 429, and commits nothing it refused", async () => {
      const forwarded = { "x-forwarded-for": "198.51.100.77" };
      expect(
        (
          await timed(`${f.baseUrl}/v1/pets?limit=1`, {
            headers: { ...forwarded, authorization: `Bearer ${f.key}` },
          })
        ).status,
      ).toBe(200);
      // A key this server has not seen yet, so none is cached: verifying it needs the database.
      const { key } = await f.db.rt.apiKeys.create(
        { name: "refused", plan: "enterprise", perMinute: 1_000_000, perDay: 10_000_000 },
        "test",
      );
      const auth = { ...forwarded, authorization: `Bearer ${key}` };
      const names = Array.from({ length: 8 }, (_, i) => `refused-${i}-${Date.now()}`);
      await f.postgres?.cut();
      try {
        const answers = await Promise.all([
          ...names.map((name) =>
            timed(`${f.baseUrl}/v1/pets`, {
              method: "POST",
              headers: { ...auth, "content-type": "application/json" },
              body: JSON.stringify({ name, categoryId: f.categoryId }),
            }),
          ),
          ...Array.from({ length: 8 }, () => timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: auth })),
        ]);
        for (const r of answers) expectUnavailable(r, "keyed request");
        // Pages ask the database at most once a second: the answer of a check before the cut may be reused.
        let page = await timed(`${f.baseUrl}/admin/sign-in`, { headers: { accept: "text/html" } });
        const pageAfter = await msUntil(async () => {
          page = await timed(`${f.baseUrl}/admin/sign-in`, { headers: { accept: "text/html" } });
          return page.status !== 200;
        }, 5000);
        expect(pageAfter).toBeLessThan(2500);
        expectUnavailable(page, "sign-in page");
      } finally {
        await f.postgres?.open();
      }
      const recovery = await msUntil(
        async () => (await timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: auth })).status === 200,
      );
      expect(recovery).toBeLessThan(5000);
      await sleep(2000);
      const committed = await databaseOf(f.db.rt).prisma.pet.count({ where: { name: { in: names } } });
      expect(committed).toBe(0);
    });
  });

  describe("PostgreSQL connections left silent while new ones work", () => {
    it("drops the silent connections and serves again within 5 s, no request waiting past the budget", async () => {
      const auth = { authorization: `Bearer ${f.key}` };
      // Several pooled connections in use, then all of them go silent.
      await Promise.all(
        Array.from({ length: 30 }, () => timed(`${f.baseUrl}/v1/pets?limit=5`, { headers: auth })),
      );
      f.postgres?.silence();
      const started = performance.now();
      let recoveredAfter: number | undefined;
      const answers: Timed[] = [];
      while (performance.now() - started < 9000) {
        const round = await Promise.all(
          Array.from({ length: 4 }, () => timed(`${f.baseUrl}/v1/pets?limit=5`, { headers: auth })),
        );
        answers.push(...round);
        if (round.every((r) => r.status === 200)) {
          recoveredAfter ??= performance.now() - started;
          if (performance.now() - started > 3000) break;
        } else {
          recoveredAfter = undefined;
        }
      }
      for (const r of answers) {
        expect([200, 503]).toContain(r.status);
        expect(r.ms).toBeLessThan(BUDGET_MS);
      }
      expect(recoveredAfter).toBeDefined();
      expect(recoveredAfter).toBeLessThan(5000);
    });
  });

  for (const fault of ["blackhole", "silence"] as const) {
    describe(`Redis ${fault === "blackhole" ? "blackholed, then healed" : "connection left silent while new ones work"}`, () => {
      it("fails open at once after a few timeouts, stays ready, and limits again within 5 s of Redis answering", async () => {
        const url = `${f.baseUrl}/v1/pets?limit=1`;
        // A test before may have left the pool empty, or holding a connection its fault left silent: on a busy
        // machine, opening connections at once can pass the 1 s connect bound, and a silent connection costs the
        // request that meets it a 503, neither of which has to do with the store. The same load as the baseline's,
        // until it passes whole, leaves the pool at its working size and every such connection used up.
        await msUntil(async () => (await load(url, f.key, 16, 1000)).every((r) => r.status === 200));
        // The same load without a fault: what a request costs on this machine now, whatever else it runs.
        const healthy = await load(url, f.key, 16, 1000);
        expect(
          healthy.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 120)}`),
        ).toEqual([]);
        const healthyMs = healthy.map((r) => r.ms);
        const failOpenBefore = failOpenCount((await timed(`${f.baseUrl}/metrics`)).text);
        if (fault === "blackhole") f.redis?.blackhole();
        else f.redis?.silence();
        try {
          const answers = await load(url, f.key, 16, 3000);
          expect(
            answers.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 120)}`),
          ).toEqual([]);
          // No request hangs on the store: only the requests before the breaker opened (and a probe a second)
          // waited for it, once (the bound leaves a busy machine's stalls a second more than the slowest healthy
          // answer); without the breaker the typical request would take a store timeout more than without the fault.
          for (const r of answers)
            expect(r.ms).toBeLessThan(STORE_TIMEOUT_MS + Math.max(...healthyMs) + 1000);
          expect(
            percentile(
              answers.map((r) => r.ms),
              50,
            ),
          ).toBeLessThan(percentile(healthyMs, 50) + STORE_TIMEOUT_MS / 2);
          // Enough answers for the percentiles above, whatever the machine's load.
          expect(answers.length).toBeGreaterThan(40);

          // Ready all along (degraded while the store does not answer; a replaced connection may answer already).
          const ready = await readiness(f.baseUrl);
          expect(ready.status).toBe(200);
          expect(ready.body).toMatchObject({ status: "ok", checks: { database: { ok: true } } });
          if (fault === "blackhole") expect(ready.body.degraded).toBe(true);

          if (fault === "blackhole") await sleep(500);
        } finally {
          f.redis?.heal();
        }
        const recovery = await msUntil(async () => {
          const r = await readiness(f.baseUrl);
          return (
            r.body.checks?.rateLimitStore?.ok === true && r.body.checks.rateLimitStore.breaker === "closed"
          );
        });
        expect(recovery).toBeLessThan(5000);
        // A check that outlasts the store bound on a busy machine fails open: limiting is back once a fresh key's
        // fourth request is refused.
        expect(await msUntil(limitsApply, 10_000)).toBeLessThan(10_000);
        const metrics = await timed(`${f.baseUrl}/metrics`);
        expect(failOpenCount(metrics.text)).toBeGreaterThan(failOpenBefore);
      });
    });
  }
});

/** The fail-open decisions counted in a /metrics text (0 before the first). */
function failOpenCount(metrics: string): number {
  return Number(
    /^petstore_rate_limit_decisions_total\{decision="fail_open"\} (\d+)/m.exec(metrics)?.[1] ?? 0,
  );
}
