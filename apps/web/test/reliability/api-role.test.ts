/**
 * Production servers in the API role, run as `npm run start:api` runs them (its environment and Node options),
 * sharing a database and Redis, all started at once: one for the connection tests, one for the drain test, and a
 * pair for the rolling restart, each on a listening socket a supervisor holds (socket activation:
 * reliability/socket-activation.ts) and in a process group of its own, as systemd runs a service with a `.socket`
 * unit. (The connection tests leave their instance with abandoned requests: it is killed, not drained.)
 *
 * What one connection can make a server hold (docs/operations.md "Timeouts and limits"):
 * - clients that pipeline many requests and never read the answers: requests of a connection are served one at a
 *   time and stop while its answers are not read, so the server's memory stays bounded and other clients are
 *   served as usual;
 * - a body dripped byte by byte: answered 408 `request_timeout` (JSON) once HTTP_REQUEST_TIMEOUT_MS has passed.
 *
 * Zero-error deploys (docs/operations.md "Deploying"):
 * - a rolling restart of the two socket-activated instances under load, each stopped by a SIGTERM to its whole
 *   process group and started again on the same socket, with a client that ignores /readyz: no client-visible
 *   error (a reset or failure after the request was sent, a refused connection, a 5xx but 503 with Retry-After),
 *   as the connections that arrive between two instances wait in the socket's queue for the next one; no create
 *   lost or made twice, and the usage counts equal the requests answered;
 * - on SIGTERM an instance answers /readyz 503 at once and keeps serving for SHUTDOWN_DRAIN_MS, every answer then
 *   closing its connection; then it refuses new connections, finishes what runs, flushes the usage counts (every
 *   answered request counted) and exits 0; a second SIGTERM right after (a signal to the process group under
 *   npm reaches node twice) is the same stop, drained as well;
 * - a SIGTERM to the process `npm run start:api` began reaches the server: nothing is left running.
 *
 * Start-up on a port another process holds: one line on stderr and exit 1, nothing printed as listening.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import { isDenied } from "@petstore/core";
import { databaseOf, deleteKeys } from "@petstore/core/testing";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  API_ROLE,
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  runServerToExit,
  SERVER_BUNDLE,
  startProductionServer,
  WEB_DIR,
} from "../instances/production-server.ts";
import { freePort } from "../support/common.ts";
import { type ActivatedInstance, holdSocket, type SocketHolder } from "./socket-activation.ts";
import { msUntil, sleep, timed } from "./support.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
/** How long a stopping instance keeps serving (the drain test measures it). */
const DRAIN_MS = 1500;

/** Requests the usage table counts for `keyId` (docs/contract.md section 4: every status but 429). */
async function countedRequests(db: PreparedDatabase, keyId: string): Promise<number> {
  const rows = await databaseOf(db.rt).prisma.usageHour.findMany({ where: { apiKeyId: keyId } });
  return rows.filter((r) => !isDenied(r.outcome)).reduce((sum, r) => sum + r.requests, 0);
}

/** Resident memory of process `pid` in MB. */
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/**
 * The rolling restart's client: it keeps an idle connection 500 ms, well below the instances' drain, as a load
 * balancer's idle timeout must be (docs/operations.md "Deploying": the connections still idle when a drain ends
 * are closed, and a request sent on one at that moment fails). The margin is wide because the client's idle timer
 * runs in this worker's event loop, which a loaded machine delays by hundreds of milliseconds.
 */
const client = new Agent({ keepAliveTimeout: 500, keepAliveMaxTimeout: 500 });
/** How long each instance of the rolling restart keeps serving after its SIGTERM (ms). */
const ROLLING_DRAIN_MS = 2500;

/**
 * One request through `client`: its status (0 when it got no answer), body and Retry-After, or the code of the
 * network error (ECONNREFUSED: refused before anything was sent).
 */
async function send(
  url: string,
  init: { method: "POST"; headers: Record<string, string>; body: string },
): Promise<{ status: number; text: string; retryAfter: string | null; error: string }> {
  try {
    const response = await request(url, {
      ...init,
      dispatcher: client,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await response.body.text();
    const retryAfter = response.headers["retry-after"];
    return {
      status: response.statusCode,
      text,
      retryAfter: retryAfter ? String(retryAfter) : null,
      error: "",
    };
  } catch (error) {
    return {
      status: 0,
      text: "",
      retryAfter: null,
      error: (error as { code?: string }).code ?? String(error),
    };
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

describe("API-role production servers", () => {
  let db: PreparedDatabase;
  let categoryId: number;
  const prefix = `petstore-test:api-role:${randomUUID().slice(0, 8)}`;
  /** The instance of the connection tests. */
  let connected: ProductionServer;
  /** The instance of the drain test. */
  let drained: ProductionServer;
  /** The sockets of the pair the rolling restart restarts, and the instances serving them. */
  let holders: SocketHolder[] = [];
  let pair: ActivatedInstance[] = [];
  let ports: number[] = [];
  /** Every instance started, stopped after the tests. */
  const servers: ProductionServer[] = [];

  // The API role as `npm run start:api` runs it, memory settings included; `env` on top.
  const roleEnv = (port: number, env: Record<string, string> = {}) => ({
    DATABASE_URL: db.url,
    REDIS_URL,
    RATE_LIMIT_PREFIX: prefix,
    ...API_ROLE.env,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    SHUTDOWN_DRAIN_MS: "1000",
    ...env,
  });
  const start = async (port: number, env: Record<string, string> = {}) => {
    const server = await startProductionServer(
      port,
      roleEnv(port, env),
      90_000,
      SERVER_BUNDLE,
      API_ROLE.nodeArgs,
    );
    servers.push(server);
    return server;
  };
  /** An instance of the API role on `holder`'s socket: @returns once it answers /readyz 200. */
  const activate = async (holder: SocketHolder) => {
    const instance = await holder.start(
      [process.execPath, ...API_ROLE.nodeArgs, SERVER_BUNDLE],
      {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        LOG_LEVEL: "warn",
        ...roleEnv(holder.port, { SHUTDOWN_DRAIN_MS: String(ROLLING_DRAIN_MS) }),
      },
      WEB_DIR,
    );
    // The socket takes connections from the start: this request waits in its queue until the instance serves.
    const ready = await request(`http://127.0.0.1:${holder.port}/readyz`, {
      headersTimeout: 90_000,
      bodyTimeout: 90_000,
    });
    await ready.body.dump();
    if (ready.statusCode !== 200) throw new Error(`instance on ${holder.port}: /readyz ${ready.statusCode}`);
    return instance;
  };

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await prepareDatabase("petstore_api_role");
    categoryId = (await db.rt.categories.list())[0]?.id ?? 1;
    ports = [await freePort(), await freePort()];
    holders = await Promise.all(ports.map((port) => holdSocket(port)));
    [connected, drained, ...pair] = await Promise.all([
      freePort().then((port) =>
        start(port, { HTTP_HEADERS_TIMEOUT_MS: "2000", HTTP_REQUEST_TIMEOUT_MS: "2000" }),
      ),
      freePort().then((port) => start(port, { SHUTDOWN_DRAIN_MS: String(DRAIN_MS) })),
      ...holders.map((holder) => activate(holder)),
    ]);
  }, 300_000);
  afterAll(async () => {
    for (const instance of pair) instance.signalGroup("SIGKILL");
    await Promise.all(holders.map((holder) => holder.close()));
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
    await deleteKeys(prefix);
  });

  const issue = async (name: string) =>
    db.rt.apiKeys.create({ name, plan: "enterprise", perMinute: 1_000_000, perDay: 10_000_000 }, "test");

  describe("slow readers and dripped bodies", () => {
    afterAll(() => connected?.signal("SIGKILL"));

    it("keeps its memory bounded under 200 connections pipelining 200 requests each without reading", async () => {
      const server = connected;
      const { key } = await issue("slow readers");
      const request = `GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
      const sockets: net.Socket[] = [];
      try {
        for (let i = 0; i < 200; i++) {
          const socket = net.connect(server.port, "127.0.0.1");
          socket.on("error", () => undefined);
          socket.pause(); // never reads
          socket.write(request.repeat(200));
          sockets.push(socket);
        }
        const normal: number[] = [];
        let peak = 0;
        for (let i = 0; i < 20; i++) {
          await sleep(250);
          peak = Math.max(peak, rssMb(server.pid as number));
          const r = await timed(`${server.baseUrl}/v1/pets?limit=1`, {
            headers: { authorization: `Bearer ${key}` },
          });
          expect(r.status).toBe(200);
          normal.push(r.ms);
        }
        expect(peak).toBeLessThan(400);
        // Served as usual (a few ms each): the median, as one answer may wait out a stall of a busy machine.
        expect(median(normal)).toBeLessThan(1000);
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    });

    it("answers a dripped body 408 request_timeout (JSON) after HTTP_REQUEST_TIMEOUT_MS", async () => {
      const server = connected;
      const { key } = await issue("dripped body");
      const socket = net.connect(server.port, "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk.toString();
      });
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
      );
      const started = performance.now();
      // The 99 bytes left would take 50 s at this pace.
      const drip = setInterval(() => socket.write(" "), 500);
      await Promise.race([closed, sleep(15_000)]);
      clearInterval(drip);
      socket.destroy();
      // 2 s and the server's check interval, with room for a busy machine.
      expect(performance.now() - started).toBeLessThan(8000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({
        code: "request_timeout",
        status: 408,
      });
    });
  });

  describe("deploys", () => {
    it("restarts two socket-activated instances (each signalled twice by process group) under a client that ignores /readyz: no client-visible error, no lost or doubled create, every request counted", async () => {
      const { key, id } = await issue("rolling");
      let stop = false;
      let answers = 0;
      /**
       * Client-visible errors: a connection refused, reset or failed after the request was sent (ECONNREFUSED,
       * ECONNRESET, EPIPE, the other side closing without an answer), and any 5xx but a 503 with Retry-After
       * (which says to retry).
       */
      const failures: string[] = [];
      const names: string[] = [];
      const worker = async (w: number) => {
        for (let n = 0; !stop; n++) {
          const name = `rolling ${w}-${n}`;
          const idempotencyKey = randomUUID();
          let done = false;
          const seen: (number | string)[] = [];
          // A client retrying a 503 or 409 for up to 20 s. It never asks /readyz: every other attempt goes to
          // the instance being stopped, or to its socket while no instance serves it.
          const deadline = performance.now() + 20_000;
          for (let attempt = 0; !done && performance.now() < deadline; attempt++) {
            const port = ports[(w + n + attempt) % 2] as number;
            const r = await send(`http://127.0.0.1:${port}/v1/pets`, {
              method: "POST",
              headers: {
                authorization: `Bearer ${key}`,
                "content-type": "application/json",
                "idempotency-key": idempotencyKey,
              },
              body: JSON.stringify({ name, categoryId }),
            });
            seen.push(r.status || r.error);
            if (r.status === 0) {
              failures.push(`${r.error} on port ${port}`);
              await sleep(50);
              continue;
            }
            answers++;
            if (r.status === 201) done = true;
            else if (r.status === 409 || (r.status === 503 && r.retryAfter)) await sleep(50);
            else failures.push(`${r.status} ${r.text}`);
          }
          if (done) names.push(name);
          else failures.push(`gave up on ${name} after ${seen.join(",")}`);
        }
      };
      const load = Promise.all(Array.from({ length: 32 }, (_, w) => worker(w)));
      try {
        await sleep(1500);
        for (const i of [0, 1]) {
          const old = pair[i] as ActivatedInstance;
          // Twice, as a group holding `npm run` delivers it (npm forwards the signal node also got): the second
          // SIGTERM during the drain is the same stop, not a fast one.
          old.signalGroup("SIGTERM");
          await sleep(50);
          old.signalGroup("SIGTERM");
          expect(await old.exited).toBe(0);
          pair[i] = await activate(holders[i] as SocketHolder);
          await sleep(1000);
        }
      } finally {
        stop = true;
        await load;
        // A stop flushes the usage counts.
        for (const instance of pair) instance.signalGroup("SIGTERM");
        await Promise.all(pair.map((instance) => instance.exited));
        await client.close();
      }
      process.stdout.write(`rolling restart: ${answers} answers\n`);
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

    it("drains on SIGTERM: not ready at once, serves meanwhile with Connection: close, then exits 0 with every request counted", async () => {
      const server = drained;
      const { key, id } = await issue("drain");
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
      // Again once the first is taken, as when the process group gets it under npm (forwarded, and direct): the
      // same stop, drained all the same.
      server.signal("SIGTERM");
      // Still serving while the load balancer notices, each answer closing its connection.
      const during = await timed(`${server.baseUrl}/v1/pets?limit=1`, { headers });
      expect(during.status).toBe(200);
      expect(during.headers.get("connection")).toBe("close");
      answered++;
      expect(performance.now() - started).toBeLessThan(DRAIN_MS);
      const refusedAfter = await msUntil(
        async () => (await timed(`${server.baseUrl}/healthz`)).status === 0,
        10_000,
      );
      expect(refusedAfter).toBeGreaterThan(DRAIN_MS - 500);
      expect(await server.exited).toBe(0);
      expect(await countedRequests(db, id)).toBe(answered);
    });

    it("refuses to start on a port another process holds, in every role: one line on stderr, exit 1", async () => {
      const holder = net.createServer();
      await new Promise<void>((resolve) => holder.listen(0, resolve));
      const port = (holder.address() as net.AddressInfo).port;
      try {
        // The roles that serve the dashboard find the port taken before they start its Next.js process.
        const runs = await Promise.all(
          (["api", "all", "dashboard"] as const).map((role) =>
            runServerToExit(
              {
                PORT: String(port),
                DATABASE_URL: db.url,
                REDIS_URL,
                RATE_LIMIT_PREFIX: prefix,
                ...API_ROLE.env,
                PETSTORE_SERVE: role,
              },
              { nodeArgs: API_ROLE.nodeArgs, timeoutMs: 60_000 },
            ),
          ),
        );
        for (const { code, stdout, stderr } of runs) {
          expect({ code, stderr: stderr.trim() }).toEqual({
            code: 1,
            stderr: `Port ${port} is in use by another process: stop what holds it, or set PORT to another port.`,
          });
          // Nothing of Next's ("Running next.config ..."): the dashboard process never started.
          expect(stdout).toBe("");
        }
      } finally {
        holder.close();
      }
    }, 90_000);

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
});
