/**
 * Limits hold across app instances sharing one store (docs/contract.md section 3), on the real production server
 * (`tsx server.ts` over the Next build, PostgreSQL, Redis): two instances on two ports share one Redis (a
 * key prefix of their own, deleted afterwards); a free key's requests spread over both get exactly 60
 * admissions in total, the ban issued on one instance holds on the other, usage counters and request analytics
 * (hourly rows by operation and outcome, recent requests in Redis) of both instances add up, and /readyz reports
 * the store on each. A third instance whose REDIS_URL points at a port where nothing listens still answers
 * requests (fail open) while its /readyz says the store is down, and flushes its analytics when stopped.
 */
import { randomUUID } from "node:crypto";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { eventually } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearOfBoundary, deleteKeys, MINUTE_MS, send } from "../ratelimit/support.ts";
import { freePort } from "../support/common.ts";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  runCli,
  startProductionServer,
} from "./production-server.ts";

const PREFIX = `petstore-test:instances:${process.pid}:${randomUUID().slice(0, 8)}`;

describe("two production instances sharing one Redis", () => {
  let db: PreparedDatabase;
  const servers: ProductionServer[] = [];
  let a: ProductionServer;
  let b: ProductionServer;
  let down: ProductionServer;
  let warmKey: string;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await prepareDatabase();
    warmKey = (
      await db.rt.apiKeys.create(
        { name: "warm-up", plan: "enterprise", perMinute: 10_000, perDay: 100_000 },
        "test",
      )
    ).key;
    const env = { DATABASE_URL: db.url, PUBLIC_BASE_URL: "https://api.test.example" };
    const shared = { ...env, REDIS_URL: "redis://127.0.0.1:6379", RATE_LIMIT_PREFIX: PREFIX };
    const [pa, pb, pc, dead] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const started = await Promise.allSettled([
      startProductionServer(pa, shared),
      startProductionServer(pb, shared),
      startProductionServer(pc, {
        ...env,
        REDIS_URL: `redis://127.0.0.1:${dead}`,
        RATE_LIMIT_PREFIX: `${PREFIX}:down`,
      }),
    ]);
    for (const s of started) if (s.status === "fulfilled") servers.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    [a, b, down] = servers as [ProductionServer, ProductionServer, ProductionServer];
    // First requests load the /v1 route; keep that out of the measured part.
    for (const s of servers)
      expect((await send(s.baseUrl, "/v1/pets?limit=1", { key: warmKey })).status).toBe(200);
  }, 900_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
    await deleteKeys(PREFIX);
  });

  it("admits exactly 60 requests of a free key spread over both instances", async () => {
    const { key, id } = await db.rt.apiKeys.create({ name: "spread", plan: "free" }, "test");
    await clearOfBoundary(MINUTE_MS, 20_000);
    // 15 waves of 10 concurrent requests, 5 to each instance: the first 6 waves are admitted on both
    // (150 at once let one instance take the whole minute before the other answered any).
    const replies: (Awaited<ReturnType<typeof send>> & { on: number })[] = [];
    for (let wave = 0; wave < 15; wave++)
      replies.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            send((i % 2 === 0 ? a : b).baseUrl, "/v1/pets?limit=1", { key }).then((r) => ({
              ...r,
              on: i % 2,
            })),
          ),
        )),
      );
    const admitted = replies.filter((r) => r.status === 200);
    expect(admitted).toHaveLength(60);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(90);
    // Remaining 59..0, each seen once, whichever instance answered.
    expect(admitted.map((r) => r.rl?.remaining).sort((x = 0, y = 0) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    expect(new Set(admitted.map((r) => r.on)).size).toBe(2);
    // With the default ban settings, the 31st denial bans the key on both instances.
    const codes = replies.filter((r) => r.status === 429).map((r) => r.body.code);
    expect(codes.filter((c) => c === "rate_limited")).toHaveLength(30);
    expect(codes.filter((c) => c === "key_banned")).toHaveLength(60);
    for (const s of [a, b])
      expect((await send(s.baseUrl, "/v1/pets?limit=1", { key })).body.code).toBe("key_banned");

    // Each instance flushes its usage every 5 s; the rows add up.
    await eventually(async () => {
      expect(await db.rt.usage.daily(id, 1)).toMatchObject([{ requests: 60, rateLimited: 92, bans: 1 }]);
    }, 12_000);
    expect((await db.rt.apiKeys.get(id)).state).toBe("banned");

    // An operator lifts the ban from the CLI (its own process and limiter): both instances let the key
    // through again within 5 s (they re-read a cached ban from the store at least every 5 s).
    const cliEnv = { DATABASE_URL: db.url, REDIS_URL: "redis://127.0.0.1:6379", RATE_LIMIT_PREFIX: PREFIX };
    const listed = await runCli(["keys", "list", "--json"], cliEnv);
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as Array<{ id: string; state: string }>).find((k) => k.id === id),
    ).toMatchObject({
      state: "banned",
    });
    const unbanned = await runCli(["keys", "unban", id], cliEnv);
    expect(unbanned.code, unbanned.stderr).toBe(0);
    const liftedAt = performance.now();
    for (const s of [a, b]) {
      await eventually(async () => {
        expect((await send(s.baseUrl, "/v1/pets?limit=1", { key })).body.code).not.toBe("key_banned");
      }, 7_000);
    }
    expect(performance.now() - liftedAt).toBeLessThan(5_500);
  });

  it("reports the shared store as ready on both instances", async () => {
    for (const s of [a, b]) {
      const r = await fetch(`${s.baseUrl}/readyz`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({
        status: "ok",
        checks: {
          database: { ok: true, detail: "postgres" },
          rateLimitStore: { ok: true, detail: "redis", breaker: "closed" },
        },
      });
    }
  });

  it("lets requests through when REDIS_URL points where nothing listens; /readyz stays 200 and says the store is down", async () => {
    const { key } = await db.rt.apiKeys.create(
      { name: "down", plan: "enterprise", perMinute: 1, perDay: 10 },
      "test",
    );
    for (let i = 0; i < 3; i++) {
      const r = await send(down.baseUrl, "/v1/pets?limit=1", { key });
      expect(r.status).toBe(200);
      expect(r.doneAt - r.sentAt).toBeLessThan(1_500);
      expect(r.rl).toMatchObject({ limit: 1, remaining: 1 });
    }
    // The contract tolerates a store outage (limits fail open), so the instance stays in the load balancer.
    const r = await fetch(`${down.baseUrl}/readyz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      status: "ok",
      degraded: true,
      checks: {
        database: { ok: true, detail: "postgres" },
        rateLimitStore: { ok: false, detail: "redis", breaker: "open" },
      },
    });
  });

  it("adds both instances' analytics up: operations, outcomes, latency, recent requests; flushed on SIGTERM", async () => {
    const { key, id } = await db.rt.apiKeys.create({ name: "analytics", plan: "pro" }, "test");
    const call = (s: ProductionServer, path: string, requestId: string, init: RequestInit = {}) =>
      fetch(`${s.baseUrl}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${key}`,
          "x-request-id": requestId,
          "content-type": "application/json",
        },
      }).then((r) => r.status);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(await call(a, "/v1/pets?limit=1", `a-list-${i}`));
      statuses.push(await call(b, "/v1/pets?limit=1", `b-list-${i}`));
    }
    statuses.push(await call(a, "/v1/pets", "a-create-bad", { method: "POST", body: "{}" }));
    statuses.push(await call(b, "/v1/pets/1", "b-get"));
    statuses.push(await call(b, "/v1/store/orders", "b-orders"));
    expect(statuses).toEqual([...Array(10).fill(200), 400, 200, 501]);

    // The reader shares the database and the instances' Redis prefix, as a third instance would.
    const reader: Runtime = await openRuntime({
      config: loadConfig({
        DATABASE_URL: db.url,
        REDIS_URL: "redis://127.0.0.1:6379",
        RATE_LIMIT_PREFIX: PREFIX,
        LOG_LEVEL: "silent",
      }),
      logger: createLogger("silent"),
    });
    try {
      await eventually(async () => {
        const t = await reader.usage.traffic(id, 1);
        expect(t.requestsToday).toBe(13);
        const ops = Object.fromEntries(
          t.byOperation.map((o) => [o.operation, [o.total, o["2xx"], o["4xx"], o["5xx"]]]),
        );
        expect(ops).toMatchObject({
          listPets: [10, 10, 0, 0],
          createPet: [1, 0, 1, 0],
          getPet: [1, 1, 0, 0],
          "store.orders": [1, 0, 0, 1],
        });
        expect(t.hourly.at(-1)?.total).toBe(13);
        expect(t.latency.p50).toBeGreaterThan(0);
        const recent = await reader.usage.recentRequests(id);
        expect(recent.map((r) => r.requestId).sort()).toEqual(
          [
            ...Array.from({ length: 5 }, (_, i) => [`a-list-${i}`, `b-list-${i}`]).flat(),
            "a-create-bad",
            "b-get",
            "b-orders",
          ].sort(),
        );
        expect(recent.find((r) => r.requestId === "b-orders")).toMatchObject({
          operation: "store.orders",
          status: 501,
          clientIp: "127.0.0.1",
        });
      }, 12_000);
    } finally {
      await reader.close();
    }

    // Requests answered just before a clean stop are stored by the stop itself, not lost.
    const { key: lastKey, id: lastId } = await db.rt.apiKeys.create(
      { name: "last words", plan: "pro" },
      "test",
    );
    for (let i = 0; i < 4; i++)
      expect((await send(down.baseUrl, "/v1/pets?limit=1", { key: lastKey })).status).toBe(200);
    await down.stop();
    expect(await db.rt.usage.requestsToday(lastId)).toBe(4);
  });
});
