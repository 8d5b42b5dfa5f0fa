/**
 * A rate-limit store that is down or does not answer (docs/contract.md section 3: "If the store does not answer within
 * 1 s the request is let through and the failure logged"; section 5: /readyz reports the store): requests still
 * succeed within about a second, with the limits as headers, the failures are counted, and the readiness report
 * (what GET /readyz answers, `readinessOf`) says the store is unavailable while the database is fine.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

describe.each(cases)("rate-limit store down: $name", ({ store, setup }) => {
  let s: TestServer;
  let fake: Awaited<ReturnType<Case["setup"]>>;
  beforeAll(async () => {
    fake = await setup();
    s = await startTestServer("postgres", { env: { ...fake.env, ANONYMOUS_PER_MINUTE: "5" } });
  });
  afterAll(async () => {
    await s?.close();
    await fake?.close();
  });

  it("lets requests through within about a second, with the full limits as headers", async () => {
    const { key } = await s.rt.apiKeys.create(
      { name: "down", plan: "enterprise", perMinute: 2, perDay: 100 },
      "test",
    );
    // Sequential calls beyond the per-minute limit, and a concurrent burst: none is denied.
    for (let i = 0; i < 3; i++) {
      const r = await send(s.baseUrl, "/v1/pets?limit=1", { key });
      expect(r.status).toBe(200);
      expect(r.doneAt - r.sentAt).toBeLessThan(1_500);
      expect(r.rl).toMatchObject({ limit: 2, remaining: 2, retryAfter: null });
    }
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => send(s.baseUrl, "/v1/pets?limit=1", { key })),
    );
    for (const r of burst) {
      expect(r.status).toBe(200);
      expect(r.doneAt - r.sentAt).toBeLessThan(1_500);
    }
    // Anonymous requests are not limited either (ANONYMOUS_PER_MINUTE=5).
    const anonymous = await Promise.all(Array.from({ length: 6 }, () => send(s.baseUrl, "/v1/pets")));
    expect(anonymous.map((r) => r.status)).toEqual(Array(6).fill(401));
    const metrics = s.rt.rateLimiter.metrics();
    expect(metrics.failOpen).toBeGreaterThanOrEqual(19);
    expect(metrics.storeFailures).toBeGreaterThanOrEqual(19);
    expect(metrics.denied).toBe(0);
  });

  it("reports the store as unavailable (and the database as fine) for /readyz", async () => {
    const started = performance.now();
    const report = await readinessOf(s.rt);
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(report).toEqual({
      status: "unavailable",
      checks: { database: { ok: true, detail: "postgres" }, rateLimitStore: { ok: false, detail: store } },
    });
  });
});

describe("rate-limit store up", () => {
  it("reports ready for /readyz", async () => {
    const s = await startTestServer("postgres", { env: { REDIS_URL: "redis://127.0.0.1:6379" } });
    try {
      expect(await readinessOf(s.rt)).toEqual({
        status: "ok",
        checks: { database: { ok: true, detail: "postgres" }, rateLimitStore: { ok: true, detail: "redis" } },
      });
    } finally {
      await s.close();
    }
  });
});
