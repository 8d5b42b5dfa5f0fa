/**
 * Keyed /v1 first (docs/operations.md "Roles", `DASHBOARD_CONCURRENCY`, `DASHBOARD_QUEUE`,
 * `DASHBOARD_ANONYMOUS_SHARE`): in the `all` role, dashboard requests (pages, /api/trpc, /docs) take places in a
 * bounded pool per kind of client, with a short queue, and are refused at once (429, Retry-After) beyond it or,
 * anonymous, once their places were held for their share of the time; /v1 never waits for them, and staff with a
 * session have a pool of their own. The router on a listen(0) server with stand-ins: Next answers only when a
 * test releases it (a slow page), the REST app and the probes at once; every address within its budget, as when
 * a flood comes from many addresses; the pools' clock moves only when a test moves it.
 */
import http from "node:http";
import net, { type AddressInfo, type Socket } from "node:net";
import { loadConfig } from "@petstore/config";
import { createLogger, type Runtime } from "@petstore/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRouter } from "../../src/server/http/router.ts";

const CONCURRENCY = 2;
const QUEUE = 3;
const STAFF_COOKIE = "petstore_session=staff-session";

describe("dashboard admission in the all role", () => {
  let server: http.Server;
  let base: string;
  /** Dashboard requests Next has been handed and not yet answered: calling one answers it. */
  const pending: Array<() => void> = [];
  const served: string[] = [];
  /** Dashboard requests the router has begun to admit (read their session). */
  let routed = 0;
  /** The pools' clock (ms). */
  let clock = 0;

  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://unused/unused",
      PETSTORE_SERVE: "all",
      DASHBOARD_CONCURRENCY: String(CONCURRENCY),
      DASHBOARD_QUEUE: String(QUEUE),
      DASHBOARD_ANONYMOUS_SHARE: "0.25",
    });
    const answer = (res: http.ServerResponse, body: string) =>
      res
        .writeHead(200, { "Content-Type": "text/plain", "Content-Length": Buffer.byteLength(body) })
        .end(body);
    const runtime = {
      config,
      health: async () => undefined,
      sessions: {
        isKnown: (token: string | undefined) => {
          routed++;
          return token === "staff-session";
        },
      },
      rateLimiter: {
        checkAnonymous: async () => ({ allowed: true }),
        holdRefusal: async () => undefined,
      },
      logger: createLogger("silent"),
    } as unknown as Pick<Runtime, "rateLimiter" | "sessions" | "config" | "health" | "logger">;
    server = http.createServer(
      createRouter({
        role: "all",
        runtime,
        now: () => clock,
        api: (req, res) => answer(res, `api ${req.url}`),
        ops: (req, res) => answer(res, `ops ${req.url}`),
        dashboard: (req, res) => {
          served.push(req.url ?? "");
          pending.push(() => answer(res, `dashboard ${req.url}`));
        },
      }),
    );
    server.on("connection", (socket: Socket) => accepted.set(socket.remotePort ?? 0, socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    // Answers every slow page (and those the queue then hands to Next), so that each test starts empty.
    while (pending.length) pending.shift()?.();
    served.length = 0;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A request on a connection of its own (the router sees each as a client of its own). */
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { headers: { connection: "close", ...headers } });

  const turn = () => new Promise((resolve) => setImmediate(resolve));

  /** Resolves once Next has been handed `n` requests. */
  async function nextHolds(n: number): Promise<void> {
    while (served.length < n) await turn();
  }

  /** `request`'s status, or "handed to Next" if Next is handed a request before it is answered. */
  const statusOrNext = (request: Promise<Response>) => {
    const handed = served.length;
    return Promise.race([request.then((r) => r.status), nextHolds(handed + 1).then(() => "handed to Next")]);
  };

  /** Resolves once the router has begun `n` more dashboard requests than when `from` was read. */
  async function routedSince(from: number, n: number): Promise<void> {
    while (routed < from + n) await turn();
  }

  /** Answers Next's requests, those the queue hands over meanwhile too, until `responses` have all come. */
  async function answerAll(responses: Promise<Response>[]): Promise<number[]> {
    let done = false;
    const all = Promise.all(responses.map((r) => r.then((x) => x.status))).finally(() => {
      done = true;
    });
    while (!done) {
      pending.shift()?.();
      await turn();
    }
    return all;
  }

  /** The server's side of each connection, by the client's port. */
  const accepted = new Map<number, Socket>();

  it("serves keyed /v1 at once, and refuses at once the anonymous request beyond the pool and its queue", async () => {
    const held = Array.from({ length: CONCURRENCY }, (_, i) => get(`/docs?held=${i}`));
    await nextHolds(CONCURRENCY);
    const before = routed;
    const queued = Array.from({ length: QUEUE }, (_, i) => get(`/api/trpc/auth.me?queued=${i}`));
    await routedSince(before, QUEUE);

    const v1 = await get("/v1/pets/1", { authorization: "Bearer key" });
    expect([v1.status, await v1.text()]).toEqual([200, "api /v1/pets/1"]);
    const probe = await get("/healthz");
    expect(probe.status).toBe(200);

    const refusal = get("/admin/sign-in");
    expect(await statusOrNext(refusal)).toBe(429);
    const refused = await refusal;
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { code: string }).code).toBe("rate_limited");
    expect(served).toHaveLength(CONCURRENCY);

    // The queue goes to Next in arrival order as places free up.
    pending.shift()?.();
    await nextHolds(CONCURRENCY + 1);
    expect(served[CONCURRENCY]).toMatch(/^\/api\/trpc\/auth\.me\?queued=/);
    expect(await answerAll([...held, ...queued])).toEqual(Array(CONCURRENCY + QUEUE).fill(200));
  });

  it("keeps a pool of their own for signed-in staff while the anonymous one is full", async () => {
    const before = routed;
    const anonymous = Array.from({ length: CONCURRENCY + QUEUE }, (_, i) => get(`/docs?flood=${i}`));
    await routedSince(before, CONCURRENCY + QUEUE);
    expect(await statusOrNext(get("/docs"))).toBe(429);
    const staff = get("/admin", { cookie: STAFF_COOKIE });
    await nextHolds(CONCURRENCY + 1);
    expect(served.at(-1)).toBe("/admin");
    pending.pop()?.();
    expect((await staff).status).toBe(200);
    expect(await answerAll(anonymous)).toEqual(Array(CONCURRENCY + QUEUE).fill(200));
  });

  it("gives a queued place back when its client goes away", async () => {
    const held = Array.from({ length: CONCURRENCY }, (_, i) => get(`/docs?held=${i}`));
    await nextHolds(CONCURRENCY);
    const before = routed;
    const port = (server.address() as AddressInfo).port;
    const abandoned = await Promise.all(
      Array.from(
        { length: QUEUE },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
            socket.write("GET /docs?gone HTTP/1.1\r\nHost: localhost\r\n\r\n");
          }),
      ),
    );
    await routedSince(before, QUEUE);
    const ends = abandoned.map((socket) => accepted.get(socket.localPort ?? 0) as Socket);
    const closed = ends.map((end) => new Promise((resolve) => end.once("close", resolve)));
    // Reset (a half-closed connection stays open on the server for its answer).
    for (const socket of abandoned) socket.resetAndDestroy();
    await Promise.all(closed);
    // The queue is empty again: a new request waits rather than being refused, and is served next.
    const waiting = get("/docs?after");
    pending.shift()?.();
    await nextHolds(CONCURRENCY + 1);
    expect(served.at(-1)).toBe("/docs?after");
    expect(await answerAll([...held, waiting])).toEqual(Array(CONCURRENCY + 1).fill(200));
  });

  it("refuses anonymous requests at once while their places were held for more than their share of the time", async () => {
    // A share of 0.25: a bucket of 500 place-ms (two seconds' worth), one request counting at most all of it.
    const held = [get("/docs?a"), get("/docs?b")];
    await nextHolds(2);
    clock += 300;
    // The time of requests in progress counts as it passes: 600 place-ms so far.
    expect(await statusOrNext(get("/docs?during"))).toBe(429);
    expect(await answerAll(held)).toEqual([200, 200]);

    const refusal = get("/docs?after");
    expect(await statusOrNext(refusal)).toBe(429);
    expect((await refusal).headers.get("retry-after")).toBe("1");
    expect((await get("/v1/pets/1", { authorization: "Bearer key" })).status).toBe(200);
    const staff = get("/admin", { cookie: STAFF_COOKIE });
    await nextHolds(3);
    expect(await answerAll([staff])).toEqual([200]);

    // 100 place-ms in debt, which come back at 0.25 place-ms per ms: in 400 ms.
    clock += 400;
    expect(await statusOrNext(get("/docs?soon"))).toBe(429);
    clock += 4;
    const later = get("/docs?later");
    expect(await statusOrNext(later)).toBe("handed to Next");
    // One slow request (10 s) empties the share without putting it in debt: back in 4 ms.
    clock += 10_000;
    expect(await answerAll([later])).toEqual([200]);
    expect(await statusOrNext(get("/docs?empty"))).toBe(429);
    clock += 4;
    const next = get("/docs?next");
    expect(await statusOrNext(next)).toBe("handed to Next");
    expect(await answerAll([next])).toEqual([200]);
  });
});
