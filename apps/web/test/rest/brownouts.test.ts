/**
 * Brownouts of getPet (docs/contract.md section 4, "Brownouts"): during a window an admin scheduled, getPet answers
 * 410 `gone` with the same body and lifecycle headers as after the sunset, from its first instant to just before
 * its end (injected clock); a window another instance wrote applies within 5 s without a query per request; and
 * `GET /v1/me` lists the windows to a key that called getPet, and no deprecation to one that did not.
 */
import { databaseOf } from "@petstore/core/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CallResult, type Ctx, expectError, seedPets, useServer } from "./support.ts";

const SUNSET = new Date("2030-12-05T00:00:00Z");
const START = new Date("2029-06-01T14:00:00Z");
const at = (ms: number) => new Date(START.getTime() + ms);
const MINUTE = 60_000;

function expectLifecycleHeaders(r: CallResult) {
  expect(r.headers.get("deprecation")).toBe("@1767225600");
  expect(r.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT");
  expect(r.headers.get("link")).toBe('<https://api.test.example/v1/pets>; rel="successor-version"');
}

describe("getPet brownouts (postgres)", () => {
  const t: Ctx = useServer("postgres");
  let id = 0;
  beforeAll(async () => {
    [id = 0] = await seedPets(t.s, 1);
  });
  afterEach(() => t.s.setNow(new Date()));

  const get = (key = t.s.key) => t.call("getPet", `/v1/pets/${id}`, { headers: t.auth(key) });

  it("answers 410 from the window's first instant to just before its end, as after the sunset", async () => {
    t.s.setNow(at(-10 * MINUTE));
    const window = await t.s.rt.brownouts.schedule(
      { operation: "getPet", startsAt: START.toISOString(), durationMinutes: 30 },
      "user:admin@example.com",
    );
    expect(window).toMatchObject({ state: "scheduled", endsAt: "2029-06-01T14:30:00.000Z" });

    t.s.setNow(SUNSET);
    const afterSunset = await get();
    expectError(afterSunset, 410, "gone");

    for (const [offset, status] of [
      [-1, 200],
      [0, 410],
      [30 * MINUTE - 1, 410],
      [30 * MINUTE, 200],
    ] as const) {
      t.s.setNow(at(offset));
      const r = await get();
      expect(r.status, `at start + ${offset} ms`).toBe(status);
      expectLifecycleHeaders(r);
      if (status === 410) expect(r.body).toEqual(afterSunset.body);
    }
    // Other operations are not affected.
    t.s.setNow(at(MINUTE));
    expect((await t.call("listPets", "/v1/pets?limit=1", { headers: t.auth() })).status).toBe(200);

    await t.s.rt.brownouts.cancel(window.id, "user:admin@example.com");
    expect((await get()).status).toBe(200);
    const audit = await databaseOf(t.s.rt).prisma.auditLog.findMany({
      where: { entityType: "brownout", entityId: window.id },
      orderBy: { id: "asc" },
    });
    expect(audit.map((a) => a.action)).toEqual(["brownout.schedule", "brownout.cancel"]);
  });

  it("applies a window another instance wrote within 5 s, reading the windows once, not per request", async () => {
    const prisma = databaseOf(t.s.rt).prisma;
    const base = new Date("2029-07-01T10:00:00Z");
    t.s.setNow(base);
    expect((await get()).status).toBe(200);
    // The read that request started in the background ends before the other instance writes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await prisma.brownout.create({
      data: {
        operation: "getPet",
        startsAt: base,
        endsAt: new Date(base.getTime() + 10 * MINUTE),
        createdBy: "user:other@example.com",
      },
    });
    let reads = 0;
    const counted = t.s.rt.brownouts;
    const original = prisma.brownout.findMany.bind(prisma.brownout);
    prisma.brownout.findMany = ((args: Parameters<typeof original>[0]) => {
      reads++;
      return original(args);
    }) as typeof prisma.brownout.findMany;
    try {
      t.s.setNow(new Date(base.getTime() + 1_000));
      for (let i = 0; i < 5; i++) expect((await get()).status).toBe(200);
      t.s.setNow(new Date(base.getTime() + 5_000));
      await counted.active("getPet"); // starts the read in the background
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (let i = 0; i < 5; i++) expect((await get()).status).toBe(410);
      expect(reads).toBe(1);
    } finally {
      prisma.brownout.findMany = original;
    }
  });

  it("lists the windows in GET /v1/me to a key that called getPet, and none to one that did not", async () => {
    // Usage is counted on the real clock (the REST analytics hook), so this test stays near it.
    const now = new Date();
    t.s.setNow(now);
    await databaseOf(t.s.rt).prisma.brownout.deleteMany(); // the earlier tests' windows
    const caller = await t.s.rt.apiKeys.create(
      { name: "old client", plan: "enterprise", perMinute: 1000, perDay: 10_000 },
      "test",
    );
    const other = await t.s.rt.apiKeys.create(
      { name: "new client", plan: "enterprise", perMinute: 1000, perDay: 10_000 },
      "test",
    );
    expect((await get(caller.key)).status).toBe(200);
    const startsAt = new Date(Math.ceil(now.getTime() / MINUTE) * MINUTE + 86_400_000);
    await t.s.rt.brownouts.schedule(
      { operation: "getPet", startsAt: startsAt.toISOString(), durationMinutes: 60 },
      "test",
    );
    const me = await t.call("getMe", "/v1/me", { headers: t.auth(caller.key) });
    expect(me.status).toBe(200);
    expect((me.body as { deprecations: unknown }).deprecations).toEqual([
      {
        operation: "getPet",
        callsLast30Days: 1,
        sunsetAt: SUNSET.toISOString(),
        successor: "/v1/pets",
        brownouts: [
          {
            startsAt: startsAt.toISOString(),
            endsAt: new Date(startsAt.getTime() + 60 * MINUTE).toISOString(),
          },
        ],
      },
    ]);
    const none = await t.call("getMe", "/v1/me", { headers: t.auth(other.key) });
    expect((none.body as { deprecations: unknown }).deprecations).toEqual([]);
  });

  it("refuses a window in the past, past the sunset, or over another one", async () => {
    t.s.setNow(new Date("2029-09-01T00:00:00Z"));
    const schedule = (startsAt: string, durationMinutes = 60) =>
      t.s.rt.brownouts.schedule({ operation: "getPet", startsAt, durationMinutes }, "test");
    await expect(schedule("2029-08-31T23:00:00Z")).rejects.toMatchObject({ code: "validation_failed" });
    await expect(schedule("2030-12-04T23:30:00Z")).rejects.toMatchObject({ code: "validation_failed" });
    await schedule("2029-09-02T00:00:00Z");
    await expect(schedule("2029-09-02T00:30:00Z")).rejects.toMatchObject({ code: "conflict" });
    await expect(schedule("2029-09-02T01:00:00Z")).resolves.toMatchObject({ state: "scheduled" });
  });
});
