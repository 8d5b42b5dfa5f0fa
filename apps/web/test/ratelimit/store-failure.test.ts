/**
 * A rate-limit store that is down or does not answer (docs/contract.md section 3: "If the store does not answer within
 * 1 s the request is let through and the failure logged"; section 5: /readyz reports the store): requests still
 * succeed within about a second, with the limits as headers, the failures are counted; after three failures the
 * breaker opens and requests no longer wait for the store at all. The readiness report (what GET /readyz answers,
 * `readinessOf`) stays ready, marked degraded, while the database is fine: a store outage is tolerated. (A store
 * that answers: limits.test.ts.) Each store client is faced with what core's limiter tests do not give it: a
 * TCP peer that never answers (ioredis) and an HTTP endpoint that never answers (Upstash REST).
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { readinessOf } from "../../src/server/readiness.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { send } from "./support.ts";

/** A server on a free port that accepts connections and never answers (TCP, or HTTP when `http`). */
async function startSilentServer(kind: "tcp" | "http"): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = kind === "http" ? http.createServer(() => {}) : net.createServer(() => {});
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Case {
  name: string;
  store: "redis" | "upstash";
  /** Environment selecting the failing store; `close` stops its fake server. */
  setup(): Promise<{ env: Record<string, string>; close(): Promise<void> }>;
}

const cases: Case[] = [
  {
    name: "Redis refusing connections",
    store: "redis",
    async setup() {
      return { env: { REDIS_URL: `redis://127.0.0.1:${await deadPort()}` }, close: async () => {} };
    },
  },
  {
    name: "Redis accepting connections but never answering",
    store: "redis",
    async setup() {
      const silent = await startSilentServer("tcp");
      return { env: { REDIS_URL: `redis://127.0.0.1:${silent.port}` }, close: () => silent.close() };
    },
  },
  {
    name: "Upstash REST endpoint never answering",
    store: "upstash",
    async setup() {
      const silent = await startSilentServer("http");
      return {
        env: { UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${silent.port}`, UPSTASH_REDIS_REST_TOKEN: "t" },
        close: () => silent.close(),
      };
    },
  },
];

/** Long enough that a request which waited for the store is told apart from one that did not, under load. */
const STORE_TIMEOUT_MS = 2000;

// The cases run at once: each waits on its store's timeout, not on the CPU.
describe("rate-limit store down", () => {
  it.concurrent.each(cases)(
    "$name: requests pass within the store's timeout, then without waiting, with the full limits as headers; /readyz stays ready, degraded",
    async ({ store, setup }) => {
      const fake = await setup();
      const s = await startTestServer("postgres", {
        env: {
          ...fake.env,
          ANONYMOUS_PER_MINUTE: "5",
          RATE_LIMIT_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
        },
      });
      try {
        await expectFailOpen(s);
        await expectReadyDegraded(s, store);
      } finally {
        await s.close();
        await fake.close();
      }
    },
  );
});

/** Requests through the server `s` on a failing store are let through, waiting once per request at most. */
async function expectFailOpen(s: TestServer): Promise<void> {
  const { key } = await s.rt.apiKeys.create(
    { name: "down", plan: "enterprise", perMinute: 2, perDay: 100 },
    "test",
  );
  // Sequential calls beyond the per-minute limit, and a concurrent burst: none is denied.
  for (let i = 0; i < 3; i++) {
    const r = await send(s.fetch, "/v1/pets?limit=1", { key });
    expect(r.status).toBe(200);
    // One wait for the store per request at most, even for a key this instance had not seen yet.
    expect(r.doneAt - r.sentAt).toBeLessThan(STORE_TIMEOUT_MS + 700);
    expect(r.rl).toMatchObject({ limit: 2, remaining: 2, retryAfter: null });
  }
  // The breaker is open now: nobody waits for the store's timeout any more.
  const burst = await Promise.all(
    Array.from({ length: 10 }, () => send(s.fetch, "/v1/pets?limit=1", { key })),
  );
  for (const r of burst) {
    expect(r.status).toBe(200);
    expect(r.doneAt - r.sentAt).toBeLessThan(STORE_TIMEOUT_MS / 2);
  }
  // Anonymous requests are not limited either (ANONYMOUS_PER_MINUTE=5).
  const anonymous = await Promise.all(Array.from({ length: 6 }, () => send(s.fetch, "/v1/pets")));
  expect(anonymous.map((r) => r.status)).toEqual(Array(6).fill(401));
  const metrics = s.rt.rateLimiter.metrics();
  expect(metrics.failOpen).toBeGreaterThanOrEqual(19);
  expect(metrics.storeFailures).toBeGreaterThanOrEqual(3);
  expect(metrics.storeFailures).toBeLessThan(19);
  expect(metrics.denied).toBe(0);
}

/** The readiness report (GET /readyz) of `s`: ready, degraded, naming the store as unavailable, the database fine. */
async function expectReadyDegraded(s: TestServer, store: Case["store"]): Promise<void> {
  const started = performance.now();
  const report = await readinessOf(s.rt);
  expect(performance.now() - started).toBeLessThan(2_500);
  expect(report).toEqual({
    status: "ok",
    degraded: true,
    checks: {
      database: { ok: true, detail: "postgres" },
      rateLimitStore: {
        ok: false,
        detail: store,
        breaker: expect.stringMatching(/^(open|closed|half-open)$/),
      },
    },
  });
}
