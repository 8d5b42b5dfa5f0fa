/**
 * Request analytics and the usage figures computed from them (docs/contract.md section 4, "Usage and
 * analytics"), on real PostgreSQL (two runtimes sharing the database and Redis, as two instances do) and on the
 * embedded PGlite: counts per hour, operation and outcome, p50/p95 latency, "requests today" and the daily
 * series before and after a flush, additive flushes, reset, retention purge, and recent requests.
 */
import { randomUUID } from "node:crypto";
import { loadConfig } from "@petstore/config";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { deleteKeys, REDIS_URL } from "../src/testing/rate-limit-stores.ts";
import { type Operation, type Outcome, refusingWindow } from "../src/usage/recorder.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

describe.each(["PostgreSQL", "PGlite"] as const)("analytics on %s", (kind) => {
  let database: TestDatabase | undefined;
  let a: Runtime;
  let b: Runtime | undefined;
  let now = new Date("2026-06-01T10:30:00Z");
  const prefix = `analytics-test-${randomUUID()}`;

  const open = async (env: Record<string, string>) =>
    openRuntime({
      config: loadConfig({
        LOG_LEVEL: "silent",
        RATE_LIMIT_PREFIX: prefix,
        ANALYTICS_RETENTION_DAYS: "30",
        ...env,
      }),
      logger: createLogger("silent"),
      clock: () => now,
    });

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_analytics");
    if (kind === "PostgreSQL") {
      const env = { ...database.env, REDIS_URL };
      a = await open(env);
      b = await open(env);
    } else {
      a = await open(database.env);
    }
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.remove();
    if (kind === "PostgreSQL") await deleteKeys(prefix);
  });

  const send = (
    rt: Runtime,
    keyId: string | undefined,
    operation: Operation,
    outcome: Outcome,
    durationMs: number,
    n = 1,
  ) => {
    const status = { "2xx": 200, "4xx": 400, rate_limited: 429, key_banned: 429, "5xx": 500 }[outcome];
    for (let i = 0; i < n; i++)
      rt.analytics?.record({
        keyId,
        operation,
        outcome,
        status,
        durationMs,
        at: now.getTime(),
        clientIp: "203.0.113.9",
        requestId: `req-${operation}-${i}`,
      });
  };

  it("counts by hour, operation and outcome with p50/p95, the same before and after the flush", async () => {
    const key = await a.apiKeys.create({ name: "charts", plan: "pro" }, "test");
    send(a, key.id, "listPets", "2xx", 3, 18);
    send(a, key.id, "createPet", "4xx", 30, 2);
    send(a, key.id, "listPets", "rate_limited", 1, 3);
    send(a, key.id, "listPets", "key_banned", 1);
    send(a, key.id, "getPet", "5xx", 700);
    send(a, undefined, "unauthenticated", "4xx", 1, 5);

    const check = async () => {
      const t = await a.usage.traffic(key.id);
      expect(t.hourly).toHaveLength(24);
      expect(t.hourly.at(-1)).toMatchObject({
        start: "2026-06-01T10:00:00.000Z",
        total: 25,
        "2xx": 18,
        "4xx": 2,
        rate_limited: 3,
        key_banned: 1,
        "5xx": 1,
      });
      expect(t.daily).toHaveLength(30);
      expect(t.daily.at(-1)).toMatchObject({ start: "2026-06-01", total: 25 });
      expect(t.byOperation.find((o) => o.operation === "listPets")).toMatchObject({ total: 22, "2xx": 18 });
      expect(t.byOperation.find((o) => o.operation === "unauthenticated")?.total).toBe(0);
      expect(t.byOutcome).toContainEqual({ outcome: "rate_limited", requests: 3 });
      // 18 of 25 took 3 ms (bucket 2-5 ms), so the median is there; the 95th percentile is past 20 ms.
      expect(t.latency.p50).toBeGreaterThan(2);
      expect(t.latency.p50).toBeLessThanOrEqual(5);
      expect(t.latency.p95).toBeGreaterThan(20);
      expect(t.requestsToday).toBe(21);
      expect(await a.usage.requestsToday(key.id)).toBe(21);
      expect((await a.usage.daily(key.id, 30)).at(-1)).toEqual({
        day: "2026-06-01",
        requests: 21,
        rateLimited: 4,
        bans: 0,
        deprecatedGet: 1,
      });
      const all = await a.usage.traffic(undefined);
      expect(all.byOperation.find((o) => o.operation === "unauthenticated")?.total).toBe(5);
      const overview = await a.usage.keyOverview();
      expect(overview.topKeys.find((k) => k.id === key.id)?.requestsToday).toBe(21);
    };
    await check();
    await a.analytics?.flush();
    expect(a.analytics?.pendingRows()).toEqual([]);
    await check();
  });

  it("adds every flush and every instance to the same hourly rows", async () => {
    const key = await a.apiKeys.create({ name: "shared", plan: "pro" }, "test");
    const other = b ?? a;
    send(a, key.id, "listPets", "2xx", 4, 10);
    await a.analytics?.flush();
    send(other, key.id, "listPets", "2xx", 40, 10);
    send(a, key.id, "listPets", "2xx", 4, 5);
    await Promise.all([a.analytics?.flush(), other.analytics?.flush()]);
    for (const rt of [a, other]) {
      const t = await rt.usage.traffic(key.id);
      expect(t.hourly.at(-1)).toMatchObject({ "2xx": 25, total: 25 });
      expect(t.latency.p95).toBeGreaterThan(20);
      expect(await rt.usage.requestsToday(key.id)).toBe(25);
    }
  });

  it("splits days at UTC midnight, zeroes only today on reset (audited), and purges past the retention", async () => {
    const key = await a.apiKeys.create({ name: "days", plan: "pro" }, "test");
    now = new Date("2026-06-02T23:10:00Z");
    send(a, key.id, "getPet", "2xx", 2, 4);
    await a.analytics?.flush();
    now = new Date("2026-06-03T00:20:00Z");
    send(a, key.id, "listPets", "2xx", 2, 3);
    send(a, key.id, "listPets", "rate_limited", 2, 2);
    const days = await a.usage.daily(key.id, 2);
    expect(days).toEqual([
      { day: "2026-06-02", requests: 4, rateLimited: 0, bans: 0, deprecatedGet: 4 },
      { day: "2026-06-03", requests: 3, rateLimited: 2, bans: 0, deprecatedGet: 0 },
    ]);
    const hourly = (await a.usage.traffic(key.id)).hourly;
    expect(hourly.at(-2)).toMatchObject({ start: "2026-06-02T23:00:00.000Z", total: 4 });

    await a.usage.resetToday(key.id, "user:admin@example.com");
    await a.analytics?.flush();
    expect(await a.usage.requestsToday(key.id)).toBe(0);
    expect((await a.usage.daily(key.id, 2))[0]?.requests).toBe(4);
    const audit = await a.auditLog.list({ entityType: "apiKey", entityId: key.id, page: 1, pageSize: 25 });
    expect(audit.rows.find((r) => r.action === "apiKey.resetUsage")).toMatchObject({
      before: { day: "2026-06-03", requests: 3, rateLimited: 2 },
    });

    // 30 days of retention (ANALYTICS_RETENTION_DAYS above): the 1 June rows go once the clock passes 1 July.
    now = new Date("2026-07-03T12:00:00Z");
    expect(await a.usage.purgeOlderThan(30)).toBeGreaterThan(0);
    now = new Date("2026-06-03T00:20:00Z");
    expect((await a.usage.daily(key.id, 2))[0]?.requests).toBe(0);
    now = new Date("2026-06-01T10:30:00Z");
  });

  it("counts each 429 under the window that refused it, and shows a chosen day's hours with the split", async () => {
    const key = await a.apiKeys.create({ name: "windows", plan: "pro" }, "test");
    const limits = { keyId: key.id, perMinute: 1, perDay: 2 };
    // The limiter's windows follow Date.now(); the runtime's clock follows `now`.
    vi.useFakeTimers({ toFake: ["Date"] });
    const at = (iso: string) => {
      now = new Date(iso);
      vi.setSystemTime(now);
    };
    const call = async (requestId: string) => {
      const decision = await a.rateLimiter.checkKey(limits);
      a.analytics?.record({
        keyId: key.id,
        operation: "listPets",
        outcome: decision.allowed ? "2xx" : "rate_limited",
        window: refusingWindow(decision),
        status: decision.allowed ? 200 : 429,
        durationMs: 1,
        at: now.getTime(),
        clientIp: "198.51.100.8",
        requestId,
      });
      return decision.allowed;
    };
    try {
      at("2026-06-01T07:10:00Z");
      expect([await call("first"), await call("minute")]).toEqual([true, false]);
      at("2026-06-01T07:11:00Z");
      expect(await call("second")).toBe(true);
      at("2026-06-01T09:12:00Z");
      expect(await call("day")).toBe(false);
      // A 429 whose window is not known (as rows written before windows were) stays apart.
      send(a, key.id, "listPets", "rate_limited", 1);
    } finally {
      vi.useRealTimers();
    }
    at("2026-06-01T10:30:00Z");

    const check = async () => {
      const { day, hours } = await a.usage.dayByHour(key.id, "2026-06-01");
      expect(day).toBe("2026-06-01");
      expect(hours).toHaveLength(24);
      expect(hours[0]?.start).toBe("2026-06-01T00:00:00.000Z");
      expect(hours[7]).toMatchObject({ "2xx": 2, rate_limited: 1, minuteWindow: 1, dayWindow: 0, total: 3 });
      expect(hours[9]).toMatchObject({ rate_limited: 2, minuteWindow: 0, dayWindow: 1, windowUnrecorded: 1 });
      expect(hours[8]).toMatchObject({ total: 0 });
      // Every figure that counts 429s counts all of them, whichever window refused them.
      expect((await a.usage.daily(key.id, 1)).at(-1)).toMatchObject({ requests: 2, rateLimited: 3 });
      expect((await a.usage.traffic(key.id, 1)).byOutcome).toContainEqual({
        outcome: "rate_limited",
        requests: 3,
      });
    };
    await check();
    await a.analytics?.flush();
    await check();
    expect((await (b ?? a).usage.dayByHour(key.id, "2026-06-01")).hours[9]?.dayWindow).toBe(1);
    const recent = await (b ?? a).usage.recentRequests(key.id);
    expect(Object.fromEntries(recent.map((r) => [r.requestId, r.refusedBy]))).toMatchObject({
      first: undefined,
      minute: "minute",
      day: "day",
    });
    // A day after today, or older than the 30 days of hourly rows kept, is refused with the reason.
    await expect(a.usage.dayByHour(key.id, "2026-06-02")).rejects.toMatchObject({
      code: "validation_failed",
      message: expect.stringContaining("future"),
    });
    await expect(a.usage.dayByHour(key.id, "2026-05-02")).rejects.toMatchObject({
      code: "validation_failed",
      message: expect.stringContaining("earliest day is 2026-05-03"),
    });
    expect((await a.usage.dayByHour(key.id, "2026-05-03")).hours[0]?.total).toBe(0);
  });

  it("keeps each key's last 100 requests, newest first, shared by the instances", async () => {
    const key = await a.apiKeys.create({ name: "recent", plan: "pro" }, "test");
    const start = now.getTime();
    const other = b ?? a;
    for (let i = 0; i < 120; i++) {
      (i < 60 ? a : other).analytics?.record({
        keyId: key.id,
        operation: "listPets",
        outcome: "2xx",
        status: 200,
        durationMs: 1.25,
        at: start + i * 10,
        clientIp: "198.51.100.7",
        requestId: `r${i}`,
      });
      if (i === 59) await a.analytics?.flush();
    }
    // Before its flush, an instance shows its own entries beside the stored ones; the other sees the stored.
    expect((await other.usage.recentRequests(key.id))[0]?.requestId).toBe("r119");
    if (b) expect((await a.usage.recentRequests(key.id))[0]?.requestId).toBe("r59");
    await other.analytics?.flush();
    const recent = await a.usage.recentRequests(key.id);
    expect(recent).toHaveLength(100);
    expect(recent[0]).toEqual({
      keyId: key.id,
      at: new Date(start + 119 * 10).toISOString(),
      operation: "listPets",
      status: 200,
      durationMs: 1.3,
      clientIp: "198.51.100.7",
      requestId: "r119",
    });
    expect(recent.at(-1)?.requestId).toBe("r20");
  });

  it("stores the entries of a flush spread over many keys, each under its own key", async () => {
    // More entries than one pipeline of the store takes (64): the flush sends them in several.
    const keys: { id: string }[] = [];
    for (let i = 0; i < 40; i++)
      keys.push(await a.apiKeys.create({ name: `many ${i}`, plan: "pro" }, "test"));
    const start = now.getTime();
    for (let round = 0; round < 2; round++) {
      for (const [i, key] of keys.entries()) {
        a.analytics?.record({
          keyId: key.id,
          operation: "getPet",
          outcome: "2xx",
          status: 200,
          durationMs: 3,
          at: start + round * 1_000 + i,
          clientIp: "203.0.113.9",
          requestId: `m${i}-${round}`,
        });
      }
    }
    await a.analytics?.flush();
    const stored = await Promise.all(keys.map((key) => a.usage.recentRequests(key.id)));
    expect(stored.map((recent) => recent.map((r) => r.requestId))).toEqual(
      keys.map((_, i) => [`m${i}-1`, `m${i}-0`]),
    );
  });

  it.runIf(kind === "PostgreSQL")("reads entries stored one field per property", async () => {
    const key = await a.apiKeys.create({ name: "fields", plan: "pro" }, "test");
    const redis = new Redis(REDIS_URL);
    try {
      await redis.xadd(
        `${prefix}:recent:${key.id}`,
        "*",
        ...["at", "2026-06-01T10:00:00.000Z", "operation", "listPets"],
        ...["status", "404", "durationMs", "7.5", "clientIp", "192.0.2.1", "requestId", "old-1"],
      );
    } finally {
      redis.disconnect();
    }
    expect(await a.usage.recentRequests(key.id)).toEqual([
      {
        keyId: key.id,
        at: "2026-06-01T10:00:00.000Z",
        operation: "listPets",
        status: 404,
        durationMs: 7.5,
        clientIp: "192.0.2.1",
        requestId: "old-1",
      },
    ]);
  });

  it("stores only each key's newest 100 of a busy flush (the stream gets no more than it keeps)", async () => {
    const busy = await a.apiKeys.create({ name: "busy", plan: "pro" }, "test");
    const quiet = await a.apiKeys.create({ name: "quiet", plan: "pro" }, "test");
    const start = now.getTime();
    for (let i = 0; i < 1_000; i++) {
      const keyId = i % 400 === 0 ? quiet.id : busy.id;
      a.analytics?.record({
        keyId,
        operation: "getPet",
        outcome: "2xx",
        status: 200,
        durationMs: 2,
        at: start + i,
        clientIp: "198.51.100.7",
        requestId: `b${i}`,
      });
    }
    await a.analytics?.flush();
    const recent = await a.usage.recentRequests(busy.id);
    expect(recent.map((r) => r.requestId)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => i)
        .filter((i) => i % 400 !== 0)
        .slice(-100)
        .reverse()
        .map((i) => `b${i}`),
    );
    expect((await a.usage.recentRequests(quiet.id)).map((r) => r.requestId)).toEqual(["b800", "b400", "b0"]);
    if (kind === "PostgreSQL") {
      const redis = new Redis(REDIS_URL);
      try {
        const info = (await redis.xinfo("STREAM", `${prefix}:recent:${busy.id}`)) as unknown[];
        expect(info[info.indexOf("entries-added") + 1]).toBe(100);
      } finally {
        redis.disconnect();
      }
    }
  });
});
