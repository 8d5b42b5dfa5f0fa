/**
 * A person's own credentials over the dashboard's API: a sign-in waiting for its second factor opens nothing but
 * that step (every staff, portal and personal procedure answers UNAUTHORIZED), the code opens the session under a
 * new cookie; a person who must enrol does so through `auth.enrolBegin`/`auth.enrolConfirm`; and "forgot password"
 * answers an unknown email exactly as a known one.
 */
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { readCookie, SESSION_COOKIE } from "../../src/server/trpc/cookies";
import { createCaller } from "../../src/server/trpc/router";
import { expectTrpcError, type Harness, openHarness, PASSWORD } from "./support";

describe("people's credentials over tRPC", () => {
  let h: Harness;
  const start = new Date("2033-06-01T10:00:00Z");
  beforeAll(async () => {
    h = await openHarness();
    h.setNow(start);
  });
  afterAll(() => h?.close());

  /** Calls `auth.*` with the cookie `token` (or none); returns the answer and the new cookie token, if any. */
  async function auth<T>(token: string | null, call: (c: ReturnType<typeof createCaller>) => Promise<T>) {
    const resHeaders = new Headers();
    const caller = createCaller(
      await createInnerContext({ rt: h.rt, sessionToken: token, clientIp: "192.0.2.20", resHeaders }),
    );
    const result = await call(caller);
    return { result, token: readCookie(resHeaders.get("set-cookie")?.split(";")[0], SESSION_COOKIE) ?? null };
  }

  it("a pending second factor opens nothing until the code", async () => {
    const { caller } = await h.signedIn("staff@example.com");
    const { secret } = await caller.security.begin();
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    await caller.security.confirm({ code: totp.generate({ timestamp: start.getTime() }) });

    const signIn = await auth(null, (c) => c.auth.signIn({ email: "staff@example.com", password: PASSWORD }));
    expect(signIn.result.stage).toBe("totp");
    const pending = await h.withToken(signIn.token ?? "");
    await expectTrpcError(pending.pets.search({}), "UNAUTHORIZED");
    await expectTrpcError(pending.sessions.list(), "UNAUTHORIZED");
    await expectTrpcError(pending.security.begin(), "UNAUTHORIZED");
    await expectTrpcError(pending.auth.enrolBegin(), "UNAUTHORIZED");
    expect(await pending.auth.me()).toBeNull();
    expect(await pending.auth.pending()).toEqual({ stage: "totp", email: "staff@example.com" });

    h.setNow(new Date(start.getTime() + 60_000));
    const done = await auth(signIn.token, (c) =>
      c.auth.secondFactor({ code: totp.generate({ timestamp: start.getTime() + 60_000 }) }),
    );
    expect(done.token).not.toBe(signIn.token);
    expect((await (await h.withToken(done.token ?? "")).auth.me())?.email).toBe("staff@example.com");
    await expectTrpcError(pending.pets.search({}), "UNAUTHORIZED");
  });

  it("a person who must have a second factor enrols right after the password", async () => {
    const at = new Date(start.getTime() + 10 * 60_000);
    h.setNow(at);
    const { caller: admin } = await h.signedIn("admin@example.com");
    await admin.users.setTwoFactorRequired({ required: true });
    try {
      await h.rt.users.create(
        { email: "new@example.com", name: "Nia New", role: "staff", password: PASSWORD },
        "test",
      );
      const signIn = await auth(null, (c) => c.auth.signIn({ email: "new@example.com", password: PASSWORD }));
      expect(signIn.result.stage).toBe("enrol");
      await expectTrpcError((await h.withToken(signIn.token ?? "")).pets.search({}), "UNAUTHORIZED");
      const { result } = await auth(signIn.token, (c) => c.auth.enrolBegin());
      const code = new TOTP({ secret: Secret.fromBase32(result.secret) }).generate({
        timestamp: at.getTime(),
      });
      const enrolled = await auth(signIn.token, (c) => c.auth.enrolConfirm({ code }));
      expect(enrolled.result.recoveryCodes).toHaveLength(10);
      expect((await (await h.withToken(enrolled.token ?? "")).auth.me())?.email).toBe("new@example.com");
    } finally {
      await admin.users.setTwoFactorRequired({ required: false });
    }
  });

  it("forgot password answers an unknown email as a known one", async () => {
    const known = await auth(null, (c) => c.auth.requestPasswordReset({ email: "staff@example.com" }));
    const unknown = await auth(null, (c) => c.auth.requestPasswordReset({ email: "nobody@example.com" }));
    expect(unknown.result).toEqual(known.result);
    await expectTrpcError(
      auth(null, (c) => c.auth.resetPassword({ token: "x".repeat(43), password: "a new long password" })),
      "NOT_FOUND",
    );
  });
});
