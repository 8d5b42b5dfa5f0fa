/**
 * PostgreSQL faults, injected by a TCP proxy in front of it, against the production server (docs/operations.md
 * "Timeouts and limits"). With DATABASE_CONNECT_TIMEOUT_MS=1000 and DATABASE_STATEMENT_TIMEOUT_MS=1500 (client
 * read timeout 2.5 s) no request waits longer than that budget: REST and tRPC answer 503 `service_unavailable`
 * with Retry-After (never 500, never the anonymous bucket's 429), dashboard pages a styled 503 page, /readyz 503;
 * and the instance serves again within 5 s of the database healing, even when its old connections stay silent.
 * Creates refused during an outage are never committed later; an exhausted pool answers 503, not 500.
 */
import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { msUntil, signIn, sleep, type Timed, timed, useFaultyServer } from "./support.ts";

/** The longest a request may take while the database does not answer: the client read timeout and slack. */
const BUDGET_MS = 4000;

const BOUNDS = { DATABASE_CONNECT_TIMEOUT_MS: "1000", DATABASE_STATEMENT_TIMEOUT_MS: "1500" };

function expectUnavailable(r: Timed, what: string) {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBe(503);
  expect(r.ms, what).toBeLessThan(BUDGET_MS);
  expect(Number(r.headers.get("retry-after")), what).toBeGreaterThanOrEqual(1);
}

describe("PostgreSQL blackholed, then healed (production server)", () => {
  const f = useFaultyServer({ postgres: true }, BOUNDS);

  it("answers 503 within the budget everywhere while it is silent, and serves again within 5 s of healing", async () => {
    const cookie = await signIn(f.baseUrl);
    const auth = { authorization: `Bearer ${f.key}` };
    expect((await timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: auth })).status).toBe(200);
    f.postgres?.blackhole();

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

    f.postgres?.heal();
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

describe("PostgreSQL refusing connections, then back (production server)", () => {
  const f = useFaultyServer({ postgres: true }, { ...BOUNDS, ANONYMOUS_PER_MINUTE: "3" });

  it("answers a keyed client 503, never the anonymous bucket's 429, and commits nothing it refused", async () => {
    const auth = { authorization: `Bearer ${f.key}`, "x-forwarded-for": "198.51.100.77" };
    expect((await timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: auth })).status).toBe(200);
    await f.postgres?.cut();
    // Past the key cache's 4 s: the key can no longer be verified.
    await sleep(4500);
    const names = Array.from({ length: 8 }, (_, i) => `refused-${i}-${Date.now()}`);
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
    const page = await timed(`${f.baseUrl}/admin/sign-in`, { headers: { accept: "text/html" } });
    expectUnavailable(page, "sign-in page");

    await f.postgres?.open();
    const recovery = await msUntil(
      async () => (await timed(`${f.baseUrl}/v1/pets?limit=1`, { headers: auth })).status === 200,
    );
    expect(recovery).toBeLessThan(5000);
    await sleep(2000);
    const committed = await databaseOf(f.db.rt).prisma.pet.count({ where: { name: { in: names } } });
    expect(committed).toBe(0);
  });
});

describe("PostgreSQL connections left silent while new ones work (production server)", () => {
  const f = useFaultyServer({ postgres: true }, BOUNDS);

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

describe("an exhausted pool (production server, DATABASE_POOL_SIZE=2)", () => {
  const f = useFaultyServer({}, { ...BOUNDS, DATABASE_POOL_SIZE: "2" });

  it("answers 503 with Retry-After to the requests it cannot serve in time, never 500", async () => {
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        timed(`${f.baseUrl}/v1/pets`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${f.key}`,
            "content-type": "application/json",
            "idempotency-key": `pool-${i}-${Date.now()}`,
          },
          body: JSON.stringify({ name: `pool ${i}`, categoryId: f.categoryId }),
        }),
      ),
    );
    const statuses = new Set(answers.map((r) => r.status));
    expect([...statuses].filter((s) => s !== 201 && s !== 503)).toEqual([]);
    for (const r of answers.filter((a) => a.status === 503)) {
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // What was answered 201 is stored, and nothing else.
    const created = answers.filter((r) => r.status === 201).length;
    const stored = await databaseOf(f.db.rt).prisma.pet.count({ where: { name: { startsWith: "pool " } } });
    expect(stored).toBe(created);
  });
});
