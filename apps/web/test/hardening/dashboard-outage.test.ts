/**
 * A database outage keeps the person where they were (docs/contract.md section 4 "Outages"): a page request gets
 * the styled 503 whose reload and "try again" load that same address (path and query); a navigation inside the
 * dashboard (Next's `rsc` request of a side-bar click) gets a 503 instead of reaching Next, so that Next loads the
 * address as a page and the person lands on that 503 at the link's address, never on the overview; the
 * unavailable page a page sends the browser to mid-render returns to the page named in `next`, and only to an
 * address on this site. The dashboard gives up on a query at once when the API answers 503 with Retry-After.
 * The router on a listen(0) server with stand-ins whose database check fails or passes as the test says.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@petstore/config";
import { createLogger, type Runtime } from "@petstore/core";
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createRouter } from "../../src/server/http/router.ts";
import { unavailableAddress } from "../../src/server/http/unavailable-page.ts";
import { shouldRetry } from "../../src/ui/trpc";

const STAFF_COOKIE = "petstore_session=staff-session";

describe("the dashboard during a database outage", () => {
  let server: http.Server;
  let base: string;
  let databaseUp = false;
  const served: string[] = [];

  beforeAll(async () => {
    const config = loadConfig({ DATABASE_URL: "postgres://unused/unused", PETSTORE_SERVE: "all" });
    const runtime = {
      config,
      health: async () => {
        if (!databaseUp) throw new Error("database down");
      },
      sessions: { isKnown: (token: string | undefined) => token === "staff-session" },
      rateLimiter: {
        checkAnonymous: async () => ({ allowed: true }),
        holdRefusal: async () => undefined,
      },
      logger: createLogger("silent"),
    } as unknown as Pick<Runtime, "rateLimiter" | "sessions" | "config" | "health" | "logger">;
    const answer = (res: http.ServerResponse, body: string) => res.writeHead(200).end(body);
    server = http.createServer(
      createRouter({
        role: "all",
        runtime,
        api: (_req, res) => answer(res, "api"),
        ops: (_req, res) => answer(res, "ops"),
        dashboard: (req, res) => {
          served.push(req.url ?? "");
          answer(res, "next");
        },
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    vi.useRealTimers();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Sets whether the database answers; the router's check (kept for a second) is read afresh. */
  function database(up: boolean) {
    databaseUp = up;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 10_000);
  }

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { headers: { cookie: STAFF_COOKIE, ...headers }, redirect: "manual" });

  /** The addresses the styled 503 page reloads and offers as "try again". */
  async function pageAddresses(response: Response) {
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    const body = await response.text();
    return {
      reload: /^\d+; url=(.*)$/.exec(response.headers.get("refresh") ?? "")?.[1],
      tryAgain: />[^<]*<a href="([^"]*)">try again now<\/a>/.exec(body)?.[1],
    };
  }

  it("keeps the page's address (path and query) on the 503 page, and turns a navigation into that page", async () => {
    database(false);
    const address = "/admin/animals?status=sold&q=rex&page=3";
    expect(await pageAddresses(await get(address))).toEqual({
      reload: "/admin/animals?status=sold&q=rex&page=3",
      tryAgain: "/admin/animals?status=sold&amp;q=rex&amp;page=3",
    });
    // A side-bar click: Next's request for the page's content gets the 503, never Next's render of the layout.
    const navigation = await get("/admin/keys?state=revoked&_rsc=abc", { rsc: "1" });
    expect(navigation.status).toBe(503);
    expect(navigation.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    expect(served).toEqual([]);
  });

  it("returns from the unavailable page to the page named in next, and only to an address on this site", async () => {
    database(false);
    const next = unavailableAddress("/admin/keys?sort=lastUsed&page=2");
    expect(next).toBe("/admin/unavailable?next=%2Fadmin%2Fkeys%3Fsort%3DlastUsed%26page%3D2");
    expect((await pageAddresses(await get(next))).tryAgain).toBe("/admin/keys?sort=lastUsed&amp;page=2");
    expect((await pageAddresses(await get(unavailableAddress("//evil.example/x")))).tryAgain).toBe("/admin");
    // The Refresh header carries the address percent-encoded: a header holds no other characters.
    expect((await pageAddresses(await get(unavailableAddress("/admin/animals?q=Bärbel")))).reload).toBe(
      "/admin/animals?q=B%C3%A4rbel",
    );
    database(true);
    const back = await get(next);
    expect(back.status).toBe(307);
    expect(back.headers.get("location")).toBe("/admin/keys?sort=lastUsed&page=2");
    for (const foreign of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
      const refused = await get(`/admin/unavailable?next=${encodeURIComponent(foreign)}`);
      expect(refused.headers.get("location")).toBe("/admin");
    }
    const page = await get("/admin/animals?page=2");
    expect(page.status).toBe(200);
    expect(served).toEqual(["/admin/animals?page=2"]);
  });

  it("shows a 503 with Retry-After at once; retries a failed connection or another 5xx twice", () => {
    const answered = (data: Record<string, unknown>) =>
      TRPCClientError.from({ error: { message: "x", code: -32000, data } });
    const outage = answered({ httpStatus: 503, code: "SERVICE_UNAVAILABLE", retryAfterSeconds: 5 });
    expect(shouldRetry(0, outage)).toBe(false);
    expect(shouldRetry(0, answered({ httpStatus: 429, retryAfterSeconds: 1 }))).toBe(false);
    expect(shouldRetry(0, answered({ httpStatus: 404 }))).toBe(false);
    expect(shouldRetry(0, answered({ httpStatus: 500 }))).toBe(true);
    expect(shouldRetry(0, new TypeError("Failed to fetch"))).toBe(true);
    expect(shouldRetry(2, new TypeError("Failed to fetch"))).toBe(false);
  });
});
