/**
 * A session ended on one instance stops being exempt from the anonymous dashboard budget on every other
 * instance within 5 s (docs/contract.md section 4, "Sessions"), whichever way it ended: signing out, ending one
 * session, ending the others, an admin ending all of a user's sessions, deactivation. Two runtimes on one
 * database; the second serves the request router (src/server/http/router.ts) with a dashboard that answers
 * 204 and never resolves a session itself, so only the known-session list decides, on a clock the test moves.
 * A live session stays exempt after an idle while, even from an address whose budget is used up, though its first
 * request after that while (read again) spends the budget; a cookie of an ended session never buys more than the
 * address's budget, however many requests it sends at once.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRouter } from "../../src/server/http/router.ts";
import { SESSION_COOKIE } from "../../src/server/trpc/cookies.ts";
import { PASSWORD } from "./support.ts";

const BUDGET = 60;
const ENV = {
  LOG_LEVEL: "silent",
  PASSWORD_HASH_COST: "10",
  TRUST_PROXY: "1",
  DASHBOARD_ANONYMOUS_PER_MINUTE: String(BUDGET),
  ANONYMOUS_REFUSAL_DELAY_MS: "0",
};

interface Signed {
  userId: string;
  sessionId: string;
  token: string;
}

describe("ended sessions on another instance", () => {
  let database: TemporaryDatabase;
  let one: Runtime;
  let two: Runtime;
  let server: http.Server;
  let baseUrl: string;
  let adminId: string;
  let now = new Date();
  let users = 0;

  beforeAll(async () => {
    database = await createMigratedDatabase("petstore_ended_sessions");
    const config = loadConfig({ ...ENV, DATABASE_URL: database.url });
    [one, two] = await Promise.all([
      openRuntime({ config, logger: createLogger("silent") }),
      openRuntime({ config, clock: () => now, logger: createLogger("silent") }),
    ]);
    adminId = (
      await one.users.create(
        { email: "admin@ended.test", name: "admin", role: "admin", password: PASSWORD },
        "test",
      )
    ).id;
    const stub: http.RequestListener = (_req, res) => res.writeHead(204).end();
    server = http.createServer(
      createRouter({ role: "all", runtime: two, api: stub, ops: stub, dashboard: stub }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The start of a minute, so that no budget window turns during the test.
    now = new Date((Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1_000);
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await Promise.all([one?.close(), two?.close()]);
    await database?.drop();
  });

  /** A new staff user signed in on the first instance; the second has seen the session valid (its dashboard did). */
  async function signedIn(ip: string): Promise<Signed> {
    const email = `staff${++users}@ended.test`;
    const user = await one.users.create({ email, name: "staff", role: "staff", password: PASSWORD }, "test");
    const session = await one.sessions.signIn({ email, password: PASSWORD }, { ip });
    expect(await two.sessions.resolve(session.token)).toBeDefined();
    return { userId: user.id, sessionId: session.sessionId, token: session.token };
  }

  /** The statuses of `count` dashboard requests to the second instance from `ip`, one after another. */
  async function statuses(ip: string, count: number, token?: string): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      const r = await fetch(`${baseUrl}/api/trpc/auth.me`, {
        headers: { "x-forwarded-for": ip, ...(token ? { cookie: `${SESSION_COOKIE}=${token}` } : {}) },
      });
      await r.body?.cancel();
      out.push(r.status);
    }
    return out;
  }

  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };

  const ways: [string, (s: Signed) => Promise<unknown>][] = [
    ["signing out", (s) => one.sessions.signOut(s.token)],
    ["ending the session (sessions.revoke)", (s) => one.userSessions.revoke(s.userId, s.sessionId, "test")],
    [
      "ending the other sessions",
      async (s) => {
        const other = await one.sessions.signIn(
          { email: `staff${users}@ended.test`, password: PASSWORD },
          { ip: "192.0.2.9" },
        );
        await one.userSessions.revokeOthers(s.userId, other.sessionId, "test");
      },
    ],
    [
      "an admin ending all the user's sessions (users.endSessions)",
      (s) => one.userSessions.endAllOf(s.userId, adminId, "test"),
    ],
    ["deactivating the user", (s) => one.users.setActive({ id: s.userId, active: false }, "test")],
  ];

  it.each(ways.map(([name, end], i) => [name, end, i] as const))(
    "budgets the cookie of a session ended by %s like an anonymous caller within 5 s",
    async (_name, end, i) => {
      const ip = `198.51.100.${10 + i}`;
      const session = await signedIn(ip);
      // Known: not counted, however many.
      expect(await statuses(ip, BUDGET + 2, session.token)).toEqual(Array(BUDGET + 2).fill(204));
      await end(session);
      advance(4_999);
      expect(await statuses(ip, BUDGET + 1, session.token)).toEqual([...Array(BUDGET).fill(204), 429]);
    },
  );

  it("answers at most the budget of 120 requests at once with the cookie of a session an admin ended 5.5 s ago", async () => {
    const ip = "198.51.100.50";
    const session = await signedIn(ip);
    expect(await statuses(ip, 3, session.token)).toEqual([204, 204, 204]);
    await one.userSessions.endAllOf(session.userId, adminId, "test");
    advance(5_500);
    const answered: number[] = [];
    for (let round = 0; round < 12; round++)
      answered.push(
        ...(await Promise.all(Array.from({ length: 10 }, () => statuses(ip, 1, session.token)))).flat(),
      );
    expect(answered.filter((status) => status === 204).length).toBeLessThanOrEqual(BUDGET);
    expect(answered.filter((status) => status === 429).length).toBeGreaterThanOrEqual(120 - BUDGET);
  });

  it("counts the first request of a live session after an idle while against the budget, and answers it", async () => {
    const ip = "198.51.100.51";
    const session = await signedIn(ip);
    expect(await statuses(ip, BUDGET - 1)).toEqual(Array(BUDGET - 1).fill(204));
    advance(4_000);
    expect(await statuses(ip, 2, session.token)).toEqual([204, 204]);
    expect(await statuses(ip, 1)).toEqual([429]);
  });

  it("keeps a live session exempt after an idle while, from an address whose budget is used up", async () => {
    const ip = "198.51.100.40";
    const session = await signedIn(ip);
    expect(await statuses(ip, BUDGET + 1)).toEqual([...Array(BUDGET).fill(204), 429]);
    advance(30_000);
    expect(await statuses(ip, BUDGET + 2, session.token)).toEqual(Array(BUDGET + 2).fill(204));
    expect(await statuses(ip, 1)).toEqual([429]);
  });
});
