/**
 * Rate-limit store (Redis) faults, injected by a TCP proxy in front of it, against the production server
 * (docs/contract.md section 3 "Store"). With RATE_LIMIT_STORE_TIMEOUT_MS=500 and a 1 s breaker cool-down: after
 * a few requests that wait the timeout, the breaker opens and requests fail open at once (logged and counted);
 * /readyz stays 200, marked degraded; the silent connection is replaced; and within 5 s of Redis answering again
 * the breaker closes and limits apply again.
 */
import { describe, expect, it } from "vitest";
import { msUntil, sleep, type Timed, timed, useFaultyServer } from "./support.ts";

const STORE_TIMEOUT_MS = 500;
const ENV = { RATE_LIMIT_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS), RATE_LIMIT_BREAKER_COOLDOWN_MS: "1000" };

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

/** Whether a fresh key of 3 a minute is denied its 4th request (the store counts again). */
async function limitsApply(f: ReturnType<typeof useFaultyServer>): Promise<boolean> {
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

async function readiness(baseUrl: string) {
  const r = await timed(`${baseUrl}/readyz`);
  return { status: r.status, body: JSON.parse(r.text || "{}") };
}

for (const fault of ["blackhole", "silence"] as const) {
  describe(`Redis ${fault === "blackhole" ? "blackholed, then healed" : "connection left silent while new ones work"} (production server)`, () => {
    const f = useFaultyServer({ redis: true }, ENV);

    it("fails open at once after a few timeouts, stays ready, and limits again within 5 s of Redis answering", async () => {
      const url = `${f.baseUrl}/v1/pets?limit=1`;
      expect((await load(url, f.key, 4, 300)).every((r) => r.status === 200)).toBe(true);
      if (fault === "blackhole") f.redis?.blackhole();
      else f.redis?.silence();

      const answers = await load(url, f.key, 16, 3000);
      expect(answers.every((r) => r.status === 200)).toBe(true);
      // Only the requests before the breaker opened (and a probe a second) waited for the store.
      for (const r of answers) expect(r.ms).toBeLessThan(STORE_TIMEOUT_MS + 1000);
      expect(
        percentile(
          answers.map((r) => r.ms),
          90,
        ),
      ).toBeLessThan(STORE_TIMEOUT_MS);
      expect(answers.length).toBeGreaterThan(100);

      // Ready all along (degraded while the store does not answer; a replaced connection may answer already).
      const ready = await readiness(f.baseUrl);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: "ok", checks: { database: { ok: true } } });
      if (fault === "blackhole") expect(ready.body.degraded).toBe(true);

      if (fault === "blackhole") {
        await sleep(500);
        f.redis?.heal();
      }
      const recovery = await msUntil(async () => {
        const r = await readiness(f.baseUrl);
        return (
          r.body.checks?.rateLimitStore?.ok === true && r.body.checks.rateLimitStore.breaker === "closed"
        );
      });
      expect(recovery).toBeLessThan(5000);
      expect(await limitsApply(f)).toBe(true);
      const metrics = await timed(`${f.baseUrl}/metrics`);
      expect(metrics.text).toMatch(/^petstore_rate_limit_decisions_total\{decision="fail_open"\} [1-9]/m);
    });
  });
}
