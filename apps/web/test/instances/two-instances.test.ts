/**
 * Production servers (`node dist/server.js` over the Next build) on one database, started at once.
 *
 * Limits hold across app instances sharing one store (docs/contract.md section 3): two instances on two ports
 * share one Redis (a key prefix of their own, deleted afterwards); a free key's requests spread over both get
 * exactly 60 admissions in total, as do the requests of three keys of one free account (section 7), of 100 concurrent
 * orders for one animal sent to both exactly one is placed (section 1, "The store section"), the ban issued on one instance holds on the other, usage counters and request
 * analytics (hourly rows by operation and outcome, recent requests in Redis) of both instances add up, and
 * /readyz reports the store on each. A third instance whose REDIS_URL points at a port where nothing listens
 * still answers requests (fail open) while its /readyz says the store is down, and flushes its analytics when
 * stopped.
 *
 * A dashboard instance yields the CPU to API instances on its host (docs/operations.md "Roles"): in the
 * `dashboard` role the server runs its Next.js process at nice `DASHBOARD_NICE` (10 by default) and itself at the
 * nice it was started with, as does an `api` instance (the second of the pair), and a dashboard instance still
 * serves.
 */

import { randomUUID } from "node:crypto";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { databaseOf, eventually } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeys, MINUTE_MS, send } from "../ratelimit/support.ts";
import { freePort } from "../support/common.ts";
import {
  childProcessesOf,
  ensureBuild,
  niceOf,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  runCli,
  startProductionServer,
} from "./production-server.ts";

const PREFIX = `petstore-test:instances:${process.pid}:${randomUUID().slice(0, 8)}`;

type Reply = Awaited<ReturnType<typeof send>> & { on: number };

describe("production instances sharing one Redis, and instances by role", () => {
  let db: PreparedDatabase;
  const servers: ProductionServer[] = [];
  let a: ProductionServer;
  let b: ProductionServer;
  let down: ProductionServer;
  let dashboard: ProductionServer;
  let tuned: ProductionServer;
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
    const [pa, pb, pc, dead, pd, pe] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    const started = await Promise.allSettled([
      startProductionServer(pa as number, shared),
      startProductionServer(pb as number, { ...shared, PETSTORE_SERVE: "api" }),
      startProductionServer(pc as number, {
        ...env,
        REDIS_URL: `redis://127.0.0.1:${dead}`,
        RATE_LIMIT_PREFIX: `${PREFIX}:down`,
      }),
      startProductionServer(pd as number, { DATABASE_URL: db.url, PETSTORE_SERVE: "dashboard" }),
      startProductionServer(pe as number, {
        DATABASE_URL: db.url,
        PETSTORE_SERVE: "dashboard",
        DASHBOARD_NICE: "3",
      }),
    ]);
    for (const s of started) if (s.status === "fulfilled") servers.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    [a, b, down, dashboard, tuned] = started.map(
      (s) => (s as PromiseFulfilledResult<ProductionServer>).value,
    ) as [ProductionServer, ProductionServer, ProductionServer, ProductionServer, ProductionServer];
    // First requests load the /v1 route; keep that out of the measured part.
    for (const s of [a, b, down])
      expect((await send(s.baseUrl, "/v1/pets?limit=1", { key: warmKey })).status).toBe(200);
  }, 900_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
    await deleteKeys(PREFIX);
  });

  it("runs a dashboard instance's Next process at nice 10, or as configured, its server and an API instance as started", async () => {
    const own = niceOf(process.pid);
    const [next] = childProcessesOf(dashboard.pid);
    const [tunedNext] = childProcessesOf(tuned.pid);
    expect(niceOf(next)).toBe(Math.max(own, 10));
    expect(niceOf(tunedNext)).toBe(Math.max(own, 3));
    expect(niceOf(dashboard.pid)).toBe(own);
    expect(childProcessesOf(b.pid)).toEqual([]);
    expect(niceOf(b.pid)).toBe(own);
    expect((await fetch(`${dashboard.baseUrl}/healthz`)).status).toBe(200);
  });

  it("places exactly one of 100 concurrent orders for one animal sent to both instances", async () => {
    const { key } = await db.rt.apiKeys.create(
      { name: "racing shop", plan: "enterprise", perMinute: 10_000, perDay: 100_000 },
      "test",
    );
    const { prisma } = databaseOf(db.rt);
    const category = await prisma.category.create({ data: { name: `race ${Date.now()}` } });
    const pet = await prisma.pet.create({
      data: { name: "Contested", categoryId: category.id, status: "available" },
    });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).baseUrl}/v1/store/orders`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ petId: Number(pet.id) }),
        }).then(async (r) => ({ status: r.status, code: ((await r.json()) as { code?: string }).code })),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409 && r.code === "conflict")).toHaveLength(99);
    expect(await prisma.order.count({ where: { petId: pet.id } })).toBe(1);
    expect((await prisma.pet.findUniqueOrThrow({ where: { id: pet.id } })).status).toBe("pending");
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
    // /readyz reuses a check for up to a second (the one of its start-up may be that recent).
    await eventually(async () => {
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
    }, 3_000);
  });

  it("admits exactly 60 requests over 3 keys of one free account spread over both instances", async () => {
    let round = 0;
    const { replies } = await spreadOverOneMinute(async () => {
      round++;
      const run = await db.rt.accounts.create(
        { name: `Shared windows ${round}`, plan: "free", ownerEmail: "shared@windows.example" },
        "test",
      );
      return Promise.all(
        [1, 2, 3].map((i) => db.rt.apiKeys.createInAccount(run.id, { name: `till ${i}` }, "test")),
      );
    });
    const admitted = replies.filter((r) => r.status === 200);
    expect(admitted).toHaveLength(60);
    expect(new Set(admitted.map((r) => r.on)).size).toBe(2);
    expect(admitted.map((r) => r.rl?.remaining).sort((x = 0, y = 0) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
  });

  // The two tests below run at once (they wait for the instances' 5-s flushes); the second stops `down`.
  /**
   * 15 waves of 10 concurrent requests of a new free key, 5 to each of `a` and `b` (150 at once let one instance
   * take the whole minute before the other answered any), all within one minute window: waves that crossed a
   * minute boundary are sent again with another new key, from just after it.
   * @throws when three runs in a row crossed a boundary.
   */
  async function spreadOverOneMinute(
    issue: () => Promise<Array<{ key: string; id: string }>> = async () => [
      await db.rt.apiKeys.create({ name: "spread", plan: "free" }, "test"),
    ],
  ): Promise<{ key: string; id: string; replies: Reply[] }> {
    for (let run = 0; run < 3; run++) {
      const keys = await issue();
      const { key, id } = keys[0] as { key: string; id: string };
      const minute = Math.floor(Date.now() / MINUTE_MS);
      const replies: Reply[] = [];
      for (let wave = 0; wave < 15; wave++)
        replies.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              send((i % 2 === 0 ? a : b).baseUrl, "/v1/pets?limit=1", {
                key: (keys[(wave * 10 + i) % keys.length] as { key: string }).key,
              }).then((r) => ({
                ...r,
                on: i % 2,
              })),
            ),
          )),
        );
      if (Math.floor(Date.now() / MINUTE_MS) === minute) return { key, id, replies };
    }
    throw new Error("every run of the waves crossed a minute boundary");
  }

  it.concurrent("admits exactly 60 requests of a free key spread over both instances", async ({ expect }) => {
    // The first 6 waves are admitted on both instances.
    const { key, id, replies } = await spreadOverOneMinute();
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

    // Each instance flushes its usage every 5 s; the rows add up. Meanwhile an operator lists the keys from the
    // CLI (its own process and limiter): the key is banned there too.
    const cliEnv = { DATABASE_URL: db.url, REDIS_URL: "redis://127.0.0.1:6379", RATE_LIMIT_PREFIX: PREFIX };
    const [listed] = await Promise.all([
      runCli(["keys", "list", "--json"], cliEnv),
      eventually(async () => {
        expect(await db.rt.usage.daily(id, 1)).toMatchObject([{ requests: 60, rateLimited: 92, bans: 1 }]);
      }, 12_000),
    ]);
    expect((await db.rt.apiKeys.get(id)).state).toBe("banned");
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as Array<{ id: string; state: string }>).find((k) => k.id === id),
    ).toMatchObject({
      state: "banned",
    });
    // The operator lifts the ban: both instances let the key through again within 5 s (they re-read a cached
    // ban from the store at least every 5 s).
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

  it.concurrent("adds both instances' analytics up: operations, outcomes, latency, recent requests; flushed on SIGTERM", async ({
    expect,
  }) => {
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
    expect(statuses).toEqual([...Array(10).fill(200), 400, 200, 200]);

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
          listOrders: [1, 1, 0, 0],
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
          operation: "listOrders",
          status: 200,
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
