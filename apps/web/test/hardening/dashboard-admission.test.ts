/**
 * Keyed /v1 first (docs/operations.md "Roles", `DASHBOARD_CONCURRENCY`, `DASHBOARD_QUEUE`,
 * `DASHBOARD_ANONYMOUS_SHARE`): in the `all` role, dashboard requests (pages, /api/trpc, /docs) take places in a
 * bounded pool per kind of client, with a short queue, and are refused at once (429, Retry-After) beyond it or,
 * anonymous, once their places were held for their share of the time; /v1 never waits for them, and staff with a
 * session have a pool of their own. The router on a listen(0) server with stand-ins: Next answers only when a
 * test releases it (a slow page), the REST app and the probes at once; every address within its budget, as when
 * a flood comes from many addresses (past the first few of each: not a person); the pools' clock and queue
 * timer move only when a test moves them. A person's few requests (the first `DASHBOARD_ANONYMOUS_BURST` of their
 * address in a minute) draw on a reserve beyond the share; a refused page load gets a page, anything else JSON; a
 * request whose client goes away before it takes a place never holds one, and no request waits in a queue beyond
 * `DASHBOARD_QUEUE_TIMEOUT_MS` (503).
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
/** A session the router must read again (known.ts `recheck`): its read waits until a test ends it. */
const RECHECK_COOKIE = "petstore_session=recheck-session";
const BURST = 10;
const QUEUE_TIMEOUT_MS = 7_000;

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
  /** Requests of the client address this minute, this one included, as the limiter reports them. */
  let used = BURST + 1;
  /** Session reads waiting to be answered (true: live). */
  const rechecks: Array<(live: boolean) => void> = [];
  /** The pools' queue timers that have not fired nor been cancelled. */
  const timers = new Set<() => void>();

  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://unused/unused",
      PETSTORE_SERVE: "all",
      DASHBOARD_CONCURRENCY: String(CONCURRENCY),
      DASHBOARD_QUEUE: String(QUEUE),
      DASHBOARD_ANONYMOUS_SHARE: "0.25",
      DASHBOARD_ANONYMOUS_BURST: String(BURST),
      DASHBOARD_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
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
          if (token === "recheck-session") return new Promise<boolean>((live) => rechecks.push(live));
          return token === "staff-session";
        },
      },
      rateLimiter: {
        checkAnonymous: async () => ({ allowed: true, windows: [{ limit: 60, remaining: 60 - used }] }),
        holdRefusal: async () => undefined,
      },
      logger: createLogger("silent"),
    } as unknown as Pick<Runtime, "rateLimiter" | "sessions" | "config" | "health" | "logger">;
    server = http.createServer(
      createRouter({
        role: "all",
        runtime,
        now: () => clock,
        setTimer: (ms, callback) => {
          expect(ms).toBe(QUEUE_TIMEOUT_MS);
          timers.add(callback);
          return () => timers.delete(callback);
        },
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
  /** Resolves once `ready()` holds, turn by turn. */
  async function until(ready: () => boolean): Promise<void> {
    while (!ready()) await turn();
  }

  /** Empties the anonymous share with one slow page (10 s), from an address past its first few requests. */
  async function emptyShare(): Promise<void> {
    clock += 100_000;
    used = BURST + 1;
    const slow = get("/docs?slow");
    await nextHolds(served.length + 1);
    clock += 10_000;
    expect(await answerAll([slow])).toEqual([200]);
  }

  it("gives no place to a request whose client went away while its session was read, so staff are served after", async () => {
    clock += 100_000;
    const before = routed;
    const port = (server.address() as AddressInfo).port;
    // Prefetches the browser cancels: more than the signed-in pool's places and queue together.
    const cancelled = await Promise.all(
      Array.from(
        { length: CONCURRENCY + QUEUE + 1 },
        (_, i) =>
          new Promise<Socket>((resolve) => {
            const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
            socket.write(
              `GET /admin?prefetch=${i} HTTP/1.1\r\nHost: localhost\r\nCookie: ${RECHECK_COOKIE}\r\n\r\n`,
            );
          }),
      ),
    );
    await routedSince(before, CONCURRENCY + QUEUE + 1);
    const ends = cancelled.map((socket) => accepted.get(socket.localPort ?? 0) as Socket);
    const closed = ends.map((end) => new Promise((resolve) => end.once("close", resolve)));
    for (const socket of cancelled) socket.resetAndDestroy();
    await Promise.all(closed);
    // Their session reads answer only now: live, so each would go to the signed-in pool.
    for (const live of rechecks.splice(0)) live(true);
    for (let i = 0; i < 10; i++) await turn();
    expect(served).toEqual([]);

    const staff = get("/admin/sign-in?after", { cookie: STAFF_COOKIE });
    expect(await statusOrNext(staff)).toBe("handed to Next");
    expect(await answerAll([staff])).toEqual([200]);
  });

  it("answers a request that waited DASHBOARD_QUEUE_TIMEOUT_MS in the queue with a 503, a page for a page load", async () => {
    const held = Array.from({ length: CONCURRENCY }, (_, i) =>
      get(`/admin?held=${i}`, { cookie: STAFF_COOKIE }),
    );
    await nextHolds(CONCURRENCY);
    const page = get("/admin/users?page=2", {
      cookie: STAFF_COOKIE,
      accept: "text/html,application/xhtml+xml",
    });
    const call = get("/api/trpc/auth.me", { cookie: STAFF_COOKIE });
    await until(() => timers.size === 2);
    for (const fire of [...timers]) fire();

    const pageAnswer = await page;
    expect([pageAnswer.status, pageAnswer.headers.get("retry-after")]).toEqual([503, "7"]);
    expect(pageAnswer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(pageAnswer.headers.get("refresh")).toBe("7; url=/admin/users?page=2");
    expect(await pageAnswer.text()).toContain("reloads itself in 7 seconds");
    const callAnswer = await call;
    expect([callAnswer.status, callAnswer.headers.get("retry-after")]).toEqual([503, "7"]);
    expect(((await callAnswer.json()) as { code: string }).code).toBe("service_unavailable");
    expect(served).toHaveLength(CONCURRENCY);
    expect(await answerAll(held)).toEqual(Array(CONCURRENCY).fill(200));
  });

  it("answers a refused page load with a page that reloads itself, and every other request with JSON", async () => {
    await emptyShare();
    const html = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
    const page = await get("/portal/sign-in?next=%2Fportal%2Fkeys", html);
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).toBe("1");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toMatch(
      /^default-src 'none'; style-src 'unsafe-inline'/,
    );
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const body = await page.text();
    expect(body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(body).toContain("<title>Too many requests · Pet Store</title>");
    expect(page.headers.get("refresh")).toBe("1; url=/portal/sign-in?next=%2Fportal%2Fkeys");
    expect(body).not.toContain("http-equiv");
    expect(body).toContain("<h1>Please wait a moment</h1>");
    expect(body).not.toContain("<script");

    const head = await fetch(`${base}/docs`, { method: "HEAD", headers: { connection: "close", ...html } });
    expect([head.status, head.headers.get("content-type"), await head.text()]).toEqual([
      429,
      "text/html; charset=utf-8",
      "",
    ]);
    for (const [path, headers] of [
      ["/api/trpc/auth.me", html],
      ["/admin", { ...html, rsc: "1" }],
      ["/docs", {}],
    ] as const) {
      const answer = await get(path, headers);
      expect([path, answer.status, answer.headers.get("content-type")]).toEqual([
        path,
        429,
        "application/json; charset=utf-8",
      ]);
      expect(((await answer.json()) as { code: string }).code).toBe("rate_limited");
    }
    expect(served).toEqual(["/docs?slow"]);
  });

  it("lets a person's first requests in a minute draw on a reserve beyond the share, and no further", async () => {
    await emptyShare();
    expect(await statusOrNext(get("/docs?flood"))).toBe(429);
    // Five pages in five seconds on a loaded machine (each one takes a second), from an address within its first few.
    used = 1;
    for (let i = 0; i < 5; i++) {
      const page = get(`/portal/sign-in?person=${i}`, { accept: "text/html" });
      expect(await statusOrNext(page)).toBe("handed to Next");
      clock += 1000;
      expect(await answerAll([page])).toEqual([200]);
      used++;
    }
    // Another address past its first few is still refused: the person's time is charged to the same share.
    used = BURST + 1;
    expect(await statusOrNext(get("/docs?flood-again"))).toBe(429);
    // The reserve is bounded: requests of half a second each (each charging 500 place-ms, 125 back), counted as
    // personal, drain it (5,000 place-ms, after the 1,250 the five pages left in debt) after ten.
    used = 1;
    let admitted = 0;
    for (;;) {
      const request = get(`/api/trpc/auth.me?drain=${admitted}`);
      const status = await statusOrNext(request);
      if (status !== "handed to Next") {
        expect(status).toBe(429);
        break;
      }
      clock += 500;
      expect(await answerAll([request])).toEqual([200]);
      admitted++;
    }
    expect(admitted).toBe(10);
  });
  it("lets an invitation's acceptance draw on the reserve from an address past its first few requests", async () => {
    await emptyShare();
    expect(await statusOrNext(get("/portal/invitations/abc", { accept: "text/html" }))).toBe(429);
    const accept = fetch(`${base}/api/trpc/portal.acceptInvitation`, {
      method: "POST",
      headers: { connection: "close", "content-type": "application/json" },
      body: "{}",
    });
    expect(await statusOrNext(accept)).toBe("handed to Next");
    expect(await answerAll([accept])).toEqual([200]);
    expect(await statusOrNext(get("/api/trpc/portal.acceptInvitation"))).toBe(429);
  });
});
