/**
 * The stop and the HTTP server's connection handling, in this process (listen(0) servers; signals from an
 * emitter, not the process): docs/operations.md "Deploying" and "Timeouts and limits".
 * - SIGTERM repeated during a stop (a signal to the process group under `npm run`) is the same stop: it drains;
 *   SIGQUIT skips the waits.
 * - A client that leaves its requests (pipelined past the cap, never read) leaves no answer in the count a stop
 *   waits for, so the stop is not held for SHUTDOWN_TIMEOUT_MS.
 * - The keep-alive timeout of the configuration (65 s by default, above load balancers' 60 s) is the server's.
 */
import { EventEmitter } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { loadConfig } from "@petstore/config";
import { afterEach, describe, expect, it } from "vitest";
import { type Connections, createConnections } from "../../src/server/http/connections.ts";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { createHttpServer } from "../../src/server/http/http-server.ts";
import { createLifecycle } from "../../src/server/http/lifecycle.ts";
import { answerClientError } from "../../src/server/plain-responses.ts";
import { sleep } from "./support.ts";

const LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000 };

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.close();
    server.closeAllConnections();
  }
});

/** A server as server.ts makes it, over a fetch handler answering after `delayMs`; its port and connections. */
async function serve(delayMs: number): Promise<{ server: Server; port: number; connections: Connections }> {
  const connections = createConnections(
    fetchListener(async () => {
      await sleep(delayMs);
      return new Response(JSON.stringify({ ok: true }), { headers: { "content-type": "application/json" } });
    }, 0),
  );
  const server = createHttpServer(LIMITS, connections.listener);
  server.on("clientError", answerClientError);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, connections };
}

/** A lifecycle over `server` with signals from an emitter; when it exits, and whether it cut requests. */
function lifecycleOf(server: Server, connections: Connections, drainMs: number, firstRequestMs = 1000) {
  const signals = new EventEmitter();
  let cut = false;
  let exitedAt: number | undefined;
  const exited = new Promise<number>((resolve) => {
    createLifecycle({
      server,
      connections,
      drainMs,
      timeoutMs: 10_000,
      firstRequestMs,
      releaseCut: async () => {
        cut = true;
      },
      close: async () => undefined,
      log: () => undefined,
      exit: (code) => {
        exitedAt = performance.now();
        resolve(code);
      },
      signals,
    });
  });
  return { signals, exited, cut: () => cut, exitedAt: () => exitedAt };
}

/** Sends one GET on a new connection; resolves with the status, or 0 when the connection was cut. */
function get(port: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 0)));
    socket.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  });
}

describe("the stop", () => {
  it("drains through a second SIGTERM (a signal to the process group): requests finish, nothing is cut", async () => {
    const { server, port, connections } = await serve(600);
    const stop = lifecycleOf(server, connections, 300);
    const answer = get(port);
    await sleep(50);
    const started = performance.now();
    stop.signals.emit("SIGTERM");
    stop.signals.emit("SIGTERM");
    stop.signals.emit("SIGINT");
    expect(await stop.exited).toBe(0);
    expect(await answer).toBe(200);
    expect(stop.cut()).toBe(false);
    // The drain (300 ms) at least, not skipped.
    expect((stop.exitedAt() as number) - started).toBeGreaterThan(250);
  });

  it("skips the waits on SIGQUIT during a stop: what runs is cut at once", async () => {
    const { server, port, connections } = await serve(5000);
    const stop = lifecycleOf(server, connections, 3000);
    const answer = get(port);
    await sleep(50);
    stop.signals.emit("SIGTERM");
    await sleep(50);
    const quitAt = performance.now();
    stop.signals.emit("SIGQUIT");
    expect(await stop.exited).toBe(0);
    expect((stop.exitedAt() as number) - quitAt).toBeLessThan(1000);
    expect(stop.cut()).toBe(true);
    expect(await answer).toBe(0);
  });
});

describe("the end of the drain", () => {
  it("waits for the request of a connection opened before the listener closed, and answers it with Connection: close", async () => {
    const { server, port, connections } = await serve(5);
    const stop = lifecycleOf(server, connections, 100);
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    socket.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    stop.signals.emit("SIGTERM");
    for (let i = 0; i < 100 && server.listening; i++) await sleep(20);
    expect(server.listening).toBe(false);
    // The stop waits for it: a process that exited now would leave the request to a reset.
    socket.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(stop.exitedAt()).toBeUndefined();
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(await stop.exited).toBe(0);
    expect(stop.cut()).toBe(false);
  });

  it("closes a connection that never sends a request within the bound, without cutting anything", async () => {
    const { server, port, connections } = await serve(5);
    const stop = lifecycleOf(server, connections, 0, 200);
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const started = performance.now();
    stop.signals.emit("SIGTERM");
    expect(await stop.exited).toBe(0);
    await closed;
    expect(performance.now() - started).toBeLessThan(2000);
    expect(stop.cut()).toBe(false);
  });
});

describe("abandoned requests", () => {
  it("leave the count when their client disconnects: a stop is not held by them", async () => {
    const { server, port, connections } = await serve(5);
    const sockets = Array.from({ length: 3 }, (_, i) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("error", () => undefined);
      socket.pause(); // never reads
      // Past the 32 that may wait (the server disconnects), and within them.
      socket.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n".repeat([200, 20, 1][i] as number));
      return socket;
    });
    await sleep(300);
    for (const socket of sockets) socket.destroy();
    const stop = lifecycleOf(server, connections, 0);
    const started = performance.now();
    stop.signals.emit("SIGTERM");
    expect(await stop.exited).toBe(0);
    expect(stop.cut()).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(connections.inProgress).toBe(0);
  });
});

describe("keep-alive", () => {
  it("keeps an idle connection 65 s by default (above load balancers' 60 s), as configured", () => {
    const config = loadConfig({});
    expect(config.http.keepAliveTimeoutMs).toBe(65_000);
    expect(createHttpServer(config.http, () => undefined).keepAliveTimeout).toBe(65_000);
    const set = loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "125000" });
    const server = createHttpServer(set.http, () => undefined);
    expect(server.keepAliveTimeout).toBe(125_000);
    expect(server.headersTimeout).toBe(10_000);
  });
});
