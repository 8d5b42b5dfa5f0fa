import { databaseOf } from "@petstore/core/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { createCaller } from "../../src/server/trpc/router";
import { expectTrpcError, PASSWORD, shapeOf, useHarness } from "./support";

describe("auth procedures", () => {
  const h = useHarness();
  beforeEach(async () => {
    h.setNow(undefined);
    await databaseOf(h.rt).prisma.signInThrottle.deleteMany();
    h.rt.sessions.throttle.forgetBlocks();
  });

  it("signs in with the right password, sets an httpOnly SameSite=Lax cookie, and me() names the user", async () => {
    const resHeaders = new Headers();
    const anon = createCaller(await createInnerContext({ rt: h.rt, resHeaders }));
    const result = await anon.auth.signIn({ email: "ADMIN@example.com", password: PASSWORD });
    expect(result.user).toMatchObject({ email: "admin@example.com", name: "Ada Admin", role: "admin" });
    const cookie = resHeaders.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^petstore_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure");
    const { caller } = await h.signedIn("admin@example.com");
    expect(await caller.auth.me()).toMatchObject({ email: "admin@example.com", role: "admin" });
    expect(await anon.auth.me()).toBeNull();
  });

  it("marks the cookie Secure when served over HTTPS", async () => {
    const resHeaders = new Headers();
    const anon = createCaller(await createInnerContext({ rt: h.rt, resHeaders, secureCookies: true }));
    await anon.auth.signIn({ email: "staff@example.com", password: PASSWORD });
    expect(resHeaders.get("set-cookie")).toContain("; Secure");
  });

  it("answers a wrong password and an unknown email with the same message", async () => {
    const anon = await h.anonymous();
    const wrong = await expectTrpcError(
      anon.auth.signIn({ email: "admin@example.com", password: "nope" }),
      "UNAUTHORIZED",
    );
    const unknown = await expectTrpcError(
      anon.auth.signIn({ email: "ghost@example.com", password: "nope" }),
      "UNAUTHORIZED",
    );
    expect(wrong.message).toBe("The email or password is incorrect.");
    expect(unknown.message).toBe(wrong.message);
  });

  it("rejects a malformed email with a field message", async () => {
    const anon = await h.anonymous();
    const error = await expectTrpcError(
      anon.auth.signIn({ email: "not-an-email", password: "x" }),
      "BAD_REQUEST",
    );
    expect(shapeOf(error).data.details).toEqual([{ path: "email", message: "must be an email address" }]);
  });

  const wrongFrom = async (ip: string, email = "staff@example.com") =>
    expectTrpcError(
      (await h.anonymous(ip)).auth.signIn({ email, password: "wrong password" }),
      "UNAUTHORIZED",
    );

  it("throttles an account from one client after 5 failures, even the right password, with growing back-off", async () => {
    const start = new Date("2030-01-01T10:00:00Z");
    const at = (seconds: number) => h.setNow(new Date(start.getTime() + seconds * 1000));
    at(0);
    for (let i = 0; i < 5; i++) await wrongFrom("198.51.100.1");
    const anon = await h.anonymous("198.51.100.1");
    const throttled = await expectTrpcError(
      anon.auth.signIn({ email: "staff@example.com", password: PASSWORD }),
      "TOO_MANY_REQUESTS",
    );
    expect(throttled.message).toBe("Too many failed sign-in attempts. Try again in 1 minute.");
    expect(shapeOf(throttled).data.retryAfterSeconds).toBe(60);
    // The same words for an email that does not exist: nothing is revealed.
    for (let i = 0; i < 5; i++) await wrongFrom("198.51.100.1", "ghost@example.com");
    const ghost = await expectTrpcError(
      anon.auth.signIn({ email: "ghost@example.com", password: "x" }),
      "TOO_MANY_REQUESTS",
    );
    expect(ghost.message).toBe(throttled.message);
    // After the block, one more failure blocks for twice as long.
    at(61);
    await wrongFrom("198.51.100.1");
    const longer = await expectTrpcError(
      anon.auth.signIn({ email: "staff@example.com", password: PASSWORD }),
      "TOO_MANY_REQUESTS",
    );
    expect(shapeOf(longer).data.retryAfterSeconds).toBe(120);
    at(182);
    await expect(anon.auth.signIn({ email: "staff@example.com", password: PASSWORD })).resolves.toBeTruthy();
    // A success clears this client's count for the account.
    for (let i = 0; i < 4; i++) await wrongFrom("198.51.100.1");
    await expect(anon.auth.signIn({ email: "staff@example.com", password: PASSWORD })).resolves.toBeTruthy();
  });

  it("does not let one client lock an account for other clients", async () => {
    for (let i = 0; i < 5; i++) await wrongFrom("198.51.100.2", "admin@example.com");
    await expectTrpcError(
      (await h.anonymous("198.51.100.2")).auth.signIn({ email: "admin@example.com", password: PASSWORD }),
      "TOO_MANY_REQUESTS",
    );
    await expect(
      (await h.anonymous("198.51.100.3")).auth.signIn({ email: "admin@example.com", password: PASSWORD }),
    ).resolves.toBeTruthy();
  });

  it("throttles a client after 20 failures, whatever accounts they were for", async () => {
    const ip = "192.0.2.77";
    for (let i = 0; i < 20; i++) await wrongFrom(ip, `guess${i}@example.com`);
    await expectTrpcError(
      (await h.anonymous(ip)).auth.signIn({ email: "admin@example.com", password: PASSWORD }),
      "TOO_MANY_REQUESTS",
    );
    await expect(
      (await h.anonymous("192.0.2.78")).auth.signIn({ email: "admin@example.com", password: PASSWORD }),
    ).resolves.toBeTruthy();
  });

  it("blocks an account for browsers without a device cookie for it after 100 failures from many clients, with an alert in the audit log", async () => {
    const now = new Date("2030-02-01T10:00:00Z");
    h.setNow(now);
    // 99 failures from as many clients so far (written directly: 99 password checks would only cost time).
    await databaseOf(h.rt).prisma.signInThrottle.create({
      data: { bucket: "account:admin@example.com", failures: 99, lastAttemptAt: now },
    });
    await wrongFrom("10.0.0.100", "admin@example.com");
    const blocked = await expectTrpcError(
      (await h.anonymous("10.1.0.1")).auth.signIn({ email: "admin@example.com", password: PASSWORD }),
      "TOO_MANY_REQUESTS",
    );
    expect(shapeOf(blocked).data.retryAfterSeconds).toBe(900);
    const alert = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "session.accountThrottled", entityId: "admin@example.com" },
    });
    expect(alert).toMatchObject({ actor: "system", entityType: "session" });
  });

  it("counts an attempt before its password is checked: of 12 concurrent attempts at most 5 are checked", async () => {
    const anon = await h.anonymous("198.51.100.30");
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        anon.auth.signIn({ email: "staff@example.com", password: `wrong ${i}` }).then(
          () => "OK",
          (e: { code: string }) => e.code,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "UNAUTHORIZED")).toHaveLength(5);
    expect(outcomes.filter((o) => o === "TOO_MANY_REQUESTS")).toHaveLength(7);
  });

  it("audits sign-in, failed sign-in, throttling (once per block) and sign-out", async () => {
    const ip = "198.51.100.40";
    for (let i = 0; i < 5; i++) await wrongFrom(ip);
    for (let i = 0; i < 3; i++) {
      await expectTrpcError(
        (await h.anonymous(ip)).auth.signIn({ email: "staff@example.com", password: "x" }),
        "TOO_MANY_REQUESTS",
      );
    }
    const { token } = await h.signedIn("staff@example.com");
    await (await h.withToken(token)).auth.signOut();
    const rows = await databaseOf(h.rt).prisma.auditLog.findMany({
      where: { entityType: "session", entityId: "staff@example.com" },
      orderBy: { id: "asc" },
    });
    const mine = rows.filter((r) => (r.after as { ip?: string }).ip === ip);
    expect(mine.map((r) => r.action)).toEqual([
      ...Array(5).fill("session.signInFailed"),
      "session.throttled",
    ]);
    expect(mine[0]).toMatchObject({ actor: "anonymous", after: { email: "staff@example.com", ip } });
    expect(rows.at(-2)).toMatchObject({ action: "session.signIn", actor: "user:staff@example.com" });
    expect(rows.at(-1)).toMatchObject({ action: "session.signOut", actor: "user:staff@example.com" });
  });

  it("signing out ends the session and clears the cookie", async () => {
    const { caller, token } = await h.signedIn("staff@example.com");
    await caller.pets.search({});
    const resHeaders = new Headers();
    const same = createCaller(await createInnerContext({ rt: h.rt, sessionToken: token, resHeaders }));
    expect(await same.auth.signOut()).toEqual({ signedOut: true });
    expect(resHeaders.get("set-cookie")).toMatch(/^petstore_session=; .*Max-Age=0/);
    const after = await h.withToken(token);
    expect(await after.auth.me()).toBeNull();
    await expectTrpcError(after.pets.search({}), "UNAUTHORIZED");
  });

  it("expires a session after 12 idle hours, sliding on use", async () => {
    const start = new Date("2031-03-01T08:00:00Z");
    h.setNow(start);
    const { token } = await h.signedIn("staff@example.com");
    const at = (hours: number) => h.setNow(new Date(start.getTime() + hours * 3600_000));
    at(11);
    expect(await (await h.withToken(token)).auth.me()).not.toBeNull();
    at(22); // 11 h after the last use
    expect(await (await h.withToken(token)).auth.me()).not.toBeNull();
    at(34.1); // 12.1 h idle
    expect(await (await h.withToken(token)).auth.me()).toBeNull();
    expect(
      await databaseOf(h.rt).prisma.session.count({
        where: { user: { email: "staff@example.com" }, createdAt: start },
      }),
    ).toBe(0);
  });

  it("ends a session 30 days after sign-in however much it is used, and the sessions list says when", async () => {
    const start = new Date("2031-04-01T08:00:00Z");
    h.setNow(start);
    const { token } = await h.signedIn("staff@example.com");
    const at = (hours: number) => h.setNow(new Date(start.getTime() + hours * 3600_000));
    const mine = async () =>
      (await (await h.withToken(token)).sessions.list()).find((session) => session.current);
    const endsAt = new Date(start.getTime() + 30 * 86_400_000).toISOString();
    expect(await mine()).toMatchObject({ createdAt: start.toISOString(), endsAt });
    // Used every 10 hours, it never idles out, yet it ends 30 days after sign-in.
    for (let hours = 10; hours < 30 * 24; hours += 10) {
      at(hours);
      expect(await (await h.withToken(token)).auth.me(), `after ${hours} h`).not.toBeNull();
    }
    at(30 * 24 - 1);
    // The idle expiry never passes the absolute end.
    expect(await mine()).toMatchObject({ expiresAt: endsAt, endsAt });
    at(30 * 24);
    expect(await (await h.withToken(token)).auth.me()).toBeNull();
    expect(await databaseOf(h.rt).prisma.session.count({ where: { createdAt: start } })).toBe(0);
  });

  it("refuses an inactive user with the usual message", async () => {
    const user = await h.rt.users.create(
      { email: "gone@example.com", name: "Gone", role: "staff", password: PASSWORD },
      "test",
    );
    await h.rt.users.setActive({ id: user.id, active: false }, "test");
    const error = await expectTrpcError(
      (await h.anonymous("192.0.2.200")).auth.signIn({ email: "gone@example.com", password: PASSWORD }),
      "UNAUTHORIZED",
    );
    expect(error.message).toBe("The email or password is incorrect.");
  });
});
