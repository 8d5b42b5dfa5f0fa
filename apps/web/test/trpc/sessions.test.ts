/**
 * A user's own sessions (device from the User-Agent, address, sign-in and last use) and ending them; an
 * admin ending every session of another user. Every ending is audited; an ended session no longer works.
 */

import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { readCookie, SESSION_COOKIE } from "../../src/server/trpc/cookies";
import { createCaller } from "../../src/server/trpc/router";
import { type Caller, expectTrpcError, type Harness, openHarness, PASSWORD } from "./support";

const FIREFOX_ANDROID = "Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0";
const CHROME_LINUX =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

describe("sessions procedures", () => {
  let h: Harness;
  /**
   * Signs in from `ip` with `userAgent`; returns a caller on that session. Like an HTTP request, each call
   * of the returned caller's procedures resolves the session anew.
   */
  async function signInFrom(email: string, ip: string, userAgent: string): Promise<Caller> {
    const resHeaders = new Headers();
    const anon = createCaller(await createInnerContext({ rt: h.rt, clientIp: ip, userAgent, resHeaders }));
    await anon.auth.signIn({ email, password: PASSWORD });
    const token = readCookie(resHeaders.get("set-cookie")?.split(";")[0], SESSION_COOKIE);
    return perRequest(async () =>
      createCaller(await createInnerContext({ rt: h.rt, sessionToken: token, clientIp: ip })),
    );
  }
  /** A caller whose every procedure call gets a fresh context (as each HTTP request does). */
  function perRequest(make: () => Promise<Caller>): Caller {
    const area = (name: string) =>
      new Proxy(
        {},
        {
          get: (_t, procedure: string) => async (input?: unknown) => {
            const caller = (await make()) as unknown as Record<
              string,
              Record<string, (i?: unknown) => unknown>
            >;
            return caller[name]?.[procedure]?.(input);
          },
        },
      );
    return new Proxy({}, { get: (_t, name: string) => area(name) }) as Caller;
  }
  beforeAll(async () => {
    h = await openHarness();
  });
  afterAll(() => h?.close());

  it("lists the user's own live sessions with device, address and times, marking the current one", async () => {
    const phone = await signInFrom("staff@example.com", "198.51.100.7", FIREFOX_ANDROID);
    const laptop = await signInFrom("staff@example.com", "198.51.100.8", CHROME_LINUX);
    const sessions = await laptop.sessions.list();
    expect(sessions.map((s) => [s.device, s.ip, s.current])).toEqual([
      ["Chrome 130 on Linux", "198.51.100.8", true],
      ["Firefox 128 on Android (mobile)", "198.51.100.7", false],
    ]);
    expect(new Date(sessions[0]?.createdAt ?? "").getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(sessions[0]).toHaveProperty("lastSeenAt");
    expect(JSON.stringify(sessions)).not.toMatch(/token/i);
    // Another user's sessions never show.
    await signInFrom("admin@example.com", "198.51.100.9", CHROME_LINUX);
    expect((await phone.sessions.list()).every((s) => s.ip !== "198.51.100.9")).toBe(true);
  });

  it("ends one session, which then stops working, and audits it", async () => {
    const a = await signInFrom("staff@example.com", "203.0.113.1", CHROME_LINUX);
    const b = await signInFrom("staff@example.com", "203.0.113.2", FIREFOX_ANDROID);
    const bId = (await b.sessions.list()).find((s) => s.current)?.id ?? "";
    expect(await a.sessions.revoke({ id: bId })).toEqual({ id: bId, current: false });
    await expectTrpcError(b.sessions.list(), "UNAUTHORIZED");
    await expectTrpcError(a.sessions.revoke({ id: bId }), "NOT_FOUND");
    // Someone else's session cannot be ended this way.
    const admin = await signInFrom("admin@example.com", "203.0.113.3", CHROME_LINUX);
    const adminSession = (await admin.sessions.list()).find((s) => s.current)?.id ?? "";
    await expectTrpcError(a.sessions.revoke({ id: adminSession }), "NOT_FOUND");
    expect((await admin.sessions.list()).some((s) => s.id === adminSession)).toBe(true);
    const audit = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "user.endSession", entityId: h.staff.id },
    });
    expect(audit).toMatchObject({ actor: "user:staff@example.com", before: { sessionId: bId } });
  });

  it("signs out every other session and keeps the current one", async () => {
    const keep = await signInFrom("staff@example.com", "203.0.113.10", CHROME_LINUX);
    const other = await signInFrom("staff@example.com", "203.0.113.11", CHROME_LINUX);
    const { ended } = await keep.sessions.revokeOthers();
    expect(ended).toBeGreaterThanOrEqual(1);
    expect((await keep.sessions.list()).map((s) => s.current)).toEqual([true]);
    await expectTrpcError(other.sessions.list(), "UNAUTHORIZED");
    expect(await keep.sessions.revokeOthers()).toEqual({ ended: 0 });
  });

  it("lets an admin end every session of another user (audited), not their own", async () => {
    const staff = await signInFrom("staff@example.com", "203.0.113.20", CHROME_LINUX);
    const admin = await signInFrom("admin@example.com", "203.0.113.21", CHROME_LINUX);
    const { ended } = await admin.users.endSessions({ id: h.staff.id });
    expect(ended).toBeGreaterThanOrEqual(1);
    await expectTrpcError(staff.sessions.list(), "UNAUTHORIZED");
    expect((await admin.users.list()).find((u) => u.id === h.staff.id)?.activeSessions).toBe(0);
    const audit = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "user.endAllSessions", entityId: h.staff.id },
    });
    expect(audit).toMatchObject({ actor: "user:admin@example.com", after: { sessions: 0 } });
    await expectTrpcError(admin.users.endSessions({ id: h.admin.id }), "CONFLICT");
    await expectTrpcError(
      admin.users.endSessions({ id: "00000000-0000-4000-8000-000000000000" }),
      "NOT_FOUND",
    );
    const staffAgain = await signInFrom("staff@example.com", "203.0.113.22", CHROME_LINUX);
    await expectTrpcError(staffAgain.users.endSessions({ id: h.admin.id }), "FORBIDDEN");
  });
});
