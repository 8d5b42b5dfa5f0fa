/**
 * Zero-error deploys (docs/operations.md "Deploying"), against the production server:
 * - on SIGTERM an instance answers /readyz 503 at once and keeps serving for SHUTDOWN_DRAIN_MS, every answer then
 *   closing its connection; then it refuses new connections, finishes what runs, flushes the usage counts (every
 *   answered request counted) and exits 0;
 * - a rolling restart of two instances under load, with a client that retries on the other instance: no create
 *   fails, none is lost or made twice, and the usage counts equal the requests answered;
 * - a SIGTERM to the process `npm run start` began reaches the server: nothing is left running.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  API_ROLE,
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  SERVER_BUNDLE,
  startProductionServer,
  WEB_DIR,
} from "../instances/production-server.ts";
import { freePort } from "../support/common.ts";
import { msUntil, sleep, timed } from "./support.ts";

const REDIS_URL = "redis://127.0.0.1:6379";

/** Requests the usage table counts for `keyId` (docs/contract.md section 4: every status but 429). */
async function countedRequests(db: PreparedDatabase, keyId: string): Promise<number> {
  const rows = await databaseOf(db.rt).prisma.usageHour.findMany({ where: { apiKeyId: keyId } });
  return rows
    .filter((r) => r.outcome !== "rate_limited" && r.outcome !== "key_banned")
    .reduce((sum, r) => sum + r.requests, 0);
}

describe("deploys", () => {
  let db: PreparedDatabase;
  let categoryId: number;
  const prefix = `petstore-test:deploys:${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await prepareDatabase("petstore_deploys");
    categoryId = (await db.rt.categories.list())[0]?.id ?? 1;
  }, 300_000);
  afterAll(async () => {
    await db?.drop();
  });

  const issue = async (name: string) =>
    db.rt.apiKeys.create({ name, plan: "enterprise", perMinute: 1_000_000, perDay: 10_000_000 }, "test");

  // The API role as `npm run start:api` runs it, memory settings included.
  const start = (port: number, env: Record<string, string> = {}) =>
    startProductionServer(
      port,
      {
        DATABASE_URL: db.url,
        REDIS_URL,
        RATE_LIMIT_PREFIX: prefix,
        ...API_ROLE.env,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ...env,
      },
      90_000,
      SERVER_BUNDLE,
      API_ROLE.nodeArgs,
    );

  it("drains on SIGTERM: not ready at once, serves meanwhile with Connection: close, then exits 0 with every request counted", async () => {
    const { key, id } = await issue("drain");
    const server = await start(await freePort(), { SHUTDOWN_DRAIN_MS: "1500" });
    const headers = { authorization: `Bearer ${key}` };
    let answered = 0;
    for (let i = 0; i < 5; i++) {
      const r = await timed(`${server.baseUrl}/v1/pets?limit=1`, { headers });
      expect(r.headers.get("connection")).not.toBe("close");
      answered++;
    }
    server.signal("SIGTERM");
    const started = performance.now();
    // At once: as soon as the process has taken the signal.
    let ready = await timed(`${server.baseUrl}/readyz`);
    const notReadyAfter = await msUntil(async () => {
      ready = await timed(`${server.baseUrl}/readyz`);
      return ready.status === 503;
    }, 1000);
    expect(notReadyAfter).toBeLessThan(1000);
    expect(JSON.parse(ready.text)).toMatchObject({ status: "unavailable", draining: true });
    // Still serving while the load balancer notices, each answer closing its connection.
    const during = await timed(`${server.baseUrl}/v1/pets?limit=1`, { headers });
    expect(during.status).toBe(200);
    expect(during.headers.get("connection")).toBe("close");
    answered++;
    expect(performance.now() - started).toBeLessThan(1500);
    const refusedAfter = await msUntil(
      async () => (await timed(`${server.baseUrl}/healthz`)).status === 0,
      10_000,
    );
    expect(refusedAfter).toBeGreaterThan(1000);
    expect(await server.exited).toBe(0);
    expect(await countedRequests(db, id)).toBe(answered);
  });

  it("restarts two instances one after the other under load: no error, no lost or doubled create, every request counted", async () => {
    const { key, id } = await issue("rolling");
    const ports = [await freePort(), await freePort()];
    const servers: ProductionServer[] = await Promise.all(
      ports.map((port) => start(port, { SHUTDOWN_DRAIN_MS: "1000" })),
    );
    let stop = false;
    let answers = 0;
    const failures: string[] = [];
    const names: string[] = [];
    const worker = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const name = `rolling ${w}-${n}`;
        const idempotencyKey = randomUUID();
        let done = false;
        for (let attempt = 0; attempt < 40 && !done; attempt++) {
          const port = ports[(w + n + attempt) % 2] as number;
          const r = await timed(`http://127.0.0.1:${port}/v1/pets`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${key}`,
              "content-type": "application/json",
              "idempotency-key": idempotencyKey,
            },
            body: JSON.stringify({ name, categoryId }),
          });
          if (r.status !== 0) answers++;
          if (r.status === 201) done = true;
          else if (r.status !== 0 && r.status !== 503 && r.status !== 409)
            failures.push(`${r.status} ${r.text}`);
          else await sleep(50);
        }
        if (done) names.push(name);
        else failures.push(`gave up on ${name}`);
      }
    };
    const load = Promise.all(Array.from({ length: 32 }, (_, w) => worker(w)));
    try {
      await sleep(1500);
      for (const i of [0, 1]) {
        const old = servers[i] as ProductionServer;
        old.signal("SIGTERM");
        expect(await old.exited).toBe(0);
        servers[i] = await start(ports[i] as number, { SHUTDOWN_DRAIN_MS: "1000" });
        await sleep(1500);
      }
    } finally {
      stop = true;
      await load;
      await Promise.all(servers.map((s) => s.stop()));
    }
    expect(failures).toEqual([]);
    expect(names.length).toBeGreaterThan(100);
    const rows = await databaseOf(db.rt).prisma.pet.groupBy({
      by: ["name"],
      where: { name: { startsWith: "rolling " } },
      _count: { _all: true },
    });
    expect(rows.length).toBe(names.length);
    expect(rows.filter((r) => r._count._all !== 1)).toEqual([]);
    expect(await countedRequests(db, id)).toBe(answers);
  }, 120_000);

  it("stops the API role's server when `npm run start:api` gets SIGTERM, leaving nothing running", async () => {
    const port = await freePort();
    const npm = spawn("npm", ["run", "-s", "start:api"], {
      cwd: WEB_DIR,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        PORT: String(port),
        DATABASE_URL: db.url,
        SHUTDOWN_DRAIN_MS: "0",
        LOG_LEVEL: "warn",
      },
      stdio: "ignore",
      detached: true,
    });
    const exited = new Promise<number | null>((resolve) => npm.once("exit", resolve));
    const group = npm.pid as number;
    try {
      await msUntil(async () => (await timed(`http://127.0.0.1:${port}/readyz`)).status === 200, 60_000);
      // The API role: the dashboard is not served here.
      expect((await timed(`http://127.0.0.1:${port}/admin`)).status).toBe(404);
      process.kill(group, "SIGTERM");
      await Promise.race([exited, sleep(10_000)]);
      await msUntil(async () => (await timed(`http://127.0.0.1:${port}/healthz`)).status === 0, 5_000);
      // Nothing of the process group is left: no orphaned server.
      await msUntil(async () => {
        try {
          process.kill(-group, 0);
          return false;
        } catch {
          return true;
        }
      }, 5_000);
    } finally {
      try {
        process.kill(-group, "SIGKILL");
      } catch {}
    }
  });
});
