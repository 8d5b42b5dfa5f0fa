import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { createCaller } from "../../src/server/trpc/router";
import { expectTrpcError, type Harness, openHarness, PASSWORD, shapeOf } from "./support";

describe("auth procedures", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness();
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    h.setNow(undefined);
    await h.rt.db.prisma.signInFailure.deleteMany();
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

  it("throttles an account after 5 failures in 15 minutes, even with the right password, then lets it in again", async () => {
    const start = new Date("2030-01-01T10:00:00Z");
    h.setNow(start);
    for (let i = 0; i < 5; i++) {
      const anon = await h.anonymous(`198.51.100.${i}`);
      await expectTrpcError(
        anon.auth.signIn({ email: "staff@example.com", password: "wrong password" }),
        "UNAUTHORIZED",
      );
    }
    const anon = await h.anonymous("198.51.100.99");
    const throttled = await expectTrpcError(
      anon.auth.signIn({ email: "staff@example.com", password: PASSWORD }),
      "TOO_MANY_REQUESTS",
    );
    expect(throttled.message).toMatch(/Too many failed sign-in attempts\. Try again in 15 minutes\./);
    // The same words for an email that does not exist: nothing is revealed.
    for (let i = 0; i < 5; i++) {
      await expectTrpcError(
        (await h.anonymous(`203.0.113.${i}`)).auth.signIn({ email: "ghost@example.com", password: "x" }),
        "UNAUTHORIZED",
      );
    }
    const ghost = await expectTrpcError(
      anon.auth.signIn({ email: "ghost@example.com", password: "x" }),
      "TOO_MANY_REQUESTS",
    );
    expect(ghost.message).toBe(throttled.message);
    // Other accounts are not affected.
    await anon.auth.signIn({ email: "admin@example.com", password: PASSWORD });
    h.setNow(new Date(start.getTime() + 15 * 60_000 + 1000));
    await expect(anon.auth.signIn({ email: "staff@example.com", password: PASSWORD })).resolves.toBeTruthy();
  });

  it("throttles an IP after 5 failures, whatever accounts they were for", async () => {
    const ip = "192.0.2.77";
    for (let i = 0; i < 5; i++) {
      await expectTrpcError(
        (await h.anonymous(ip)).auth.signIn({ email: `guess${i}@example.com`, password: "x" }),
        "UNAUTHORIZED",
      );
    }
    await expectTrpcError(
      (await h.anonymous(ip)).auth.signIn({ email: "admin@example.com", password: PASSWORD }),
      "TOO_MANY_REQUESTS",
    );
    await expect(
      (await h.anonymous("192.0.2.78")).auth.signIn({ email: "admin@example.com", password: PASSWORD }),
    ).resolves.toBeTruthy();
  });

  it("forgets an account's failures after a successful sign-in", async () => {
    const fail = async () =>
      expectTrpcError(
        (await h.anonymous(`192.0.2.${Math.floor(Math.random() * 200)}`)).auth.signIn({
          email: "admin@example.com",
          password: "wrong",
        }),
        "UNAUTHORIZED",
      );
    for (let i = 0; i < 4; i++) await fail();
    await h.signedIn("admin@example.com");
    for (let i = 0; i < 4; i++) await fail();
    await expect(h.signedIn("admin@example.com")).resolves.toBeTruthy();
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
      await h.rt.db.prisma.session.count({
        where: { user: { email: "staff@example.com" }, createdAt: start },
      }),
    ).toBe(0);
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
