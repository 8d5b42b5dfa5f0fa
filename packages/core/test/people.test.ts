/**
 * People's own credentials on an injected clock: "forgot password" links (single use, one hour, the same answer for
 * unknown emails, throttled, stored hashed, never logged), password changes, and TOTP two-factor sign-in (RFC 6238
 * codes at fixed instants, each accepted once; recovery codes single use; required sign-ins sent to enrolment).
 */
import { Writable } from "node:stream";
import { loadConfig } from "@petstore/config";
import { AppError } from "@petstore/contracts";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseOf } from "../src/database/operations.ts";
import { createLogger } from "../src/logger.ts";
import type { MailMessage } from "../src/mail.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { createMigratedDatabase, type TemporaryDatabase } from "../src/testing/index.ts";
import { createCredentialService } from "../src/users/credentials.ts";
import { createPasswordWork } from "../src/users/password.ts";

const start = new Date("2033-05-01T09:00:00Z");
const MINUTE = 60_000;
const PASSWORD = "the first long password";
const client = { ip: "198.51.100.7" };

describe("people's credentials", () => {
  let rt: Runtime;
  let db: TemporaryDatabase;
  let now = start;
  const at = (ms: number) => {
    now = new Date(start.getTime() + ms);
  };
  const mails: MailMessage[] = [];
  const logged: string[] = [];
  let credentials: ReturnType<typeof createCredentialService>;
  const prisma = () => databaseOf(rt).prisma;

  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_people");
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged.push(String(chunk));
        done();
      },
    });
    const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: "info", PASSWORD_HASH_COST: "10" });
    rt = await openRuntime({ config, logger: createLogger("info", sink), clock: () => now });
    // The same service with a mailer that keeps the messages, to read the link as the person would.
    credentials = createCredentialService(
      { prisma: prisma(), clock: () => now, config, logger: createLogger("silent") },
      createPasswordWork(4, 10),
      async (message) => {
        mails.push(message);
        return "sent";
      },
      rt.sessions.throttle,
    );
  });
  afterAll(async () => {
    await rt?.close();
    await db?.drop();
  });

  async function person(email: string) {
    at(0);
    await rt.users.create({ email, name: "Pat", role: "staff", password: PASSWORD }, "test");
    return rt.sessions.signIn({ email, password: PASSWORD }, { ip: "203.0.113.1" });
  }
  const linkOf = (mail: MailMessage | undefined) => {
    const url = /https?:\/\/\S+\/admin\/reset-password\/([A-Za-z0-9_-]{43})/.exec(mail?.text ?? "");
    if (!url?.[1]) throw new Error("no reset link in the mail");
    return url[1];
  };
  const code = (err: unknown) => (err instanceof AppError ? err.code : err);

  it("a reset link works once, within the hour, and ends every session", async () => {
    const email = "forgot@people.test";
    const session = await person(email);
    await credentials.requestReset(email, client);
    const token = linkOf(mails.at(-1));
    // Only its hash is stored.
    const rows = await prisma().passwordReset.findMany({ where: { user: { email } } });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);

    at(59 * MINUTE);
    expect(await credentials.reset(token, "the second long password")).toEqual({ email });
    expect(await rt.sessions.resolve(session.token)).toBeUndefined();
    await expect(rt.sessions.signIn({ email, password: PASSWORD }, client)).rejects.toThrow(/incorrect/);
    await rt.sessions.signIn({ email, password: "the second long password" }, client);
    // Used up.
    expect(await credentials.reset(token, "a third long password!").catch(code)).toBe("not_found");

    // A new link expires after an hour.
    at(2 * 60 * MINUTE);
    await credentials.requestReset(email, client);
    const late = linkOf(mails.at(-1));
    at(3 * 60 * MINUTE + 1);
    expect(await credentials.reset(late, "a third long password!").catch(code)).toBe("not_found");
  });

  it("answers an unknown email as a known one, mails nothing, and throttles both", async () => {
    const sent = mails.length;
    at(0);
    await expect(credentials.requestReset("nobody@people.test", client)).resolves.toBeUndefined();
    expect(mails).toHaveLength(sent);
    // The sign-in throttle counts each request: the per-account-and-address bucket blocks after 5.
    const ip = "198.51.100.99";
    for (let i = 0; i < 5; i++) await credentials.requestReset("nobody@people.test", { ip });
    const err = await credentials.requestReset("nobody@people.test", { ip }).catch((e: unknown) => e);
    expect(code(err)).toBe("rate_limited");
    expect((err as AppError).headers?.["Retry-After"]).toMatch(/^\d+$/);
  });

  it("without SMTP the reset is logged without its link", async () => {
    const email = "nosmtp@people.test";
    await person(email);
    logged.length = 0;
    await rt.credentials.requestReset(email, client);
    await new Promise((resolve) => setImmediate(resolve));
    const lines = logged.join("");
    expect(lines).toContain("password reset mail (no SMTP_URL");
    expect(lines).not.toMatch(/reset-password\//);
  });

  it("a password change needs the current password and ends the other sessions", async () => {
    const email = "change@people.test";
    const here = await person(email);
    const there = await rt.sessions.signIn({ email, password: PASSWORD }, client);
    const change = (currentPassword: string) =>
      rt.credentials.change(
        here.user.id,
        here.sessionId,
        { currentPassword, newPassword: "a changed long password" },
        client,
        `user:${email}`,
      );
    expect(await change("not the password").catch(code)).toBe("validation_failed");
    expect(await change(PASSWORD)).toEqual({ sessionsEnded: 1 });
    expect(await rt.sessions.resolve(here.token)).toBeDefined();
    expect(await rt.sessions.resolve(there.token)).toBeUndefined();
  });

  describe("two-factor sign-in", () => {
    const totpAt = (secret: string, ms: number) =>
      new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: start.getTime() + ms });

    it("enrols with a first code, then asks for a code at each sign-in, each code once", async () => {
      const email = "totp@people.test";
      const session = await person(email);
      const { secret, uri } = await rt.twoFactor.begin(session.user.id);
      expect(uri).toMatch(/^otpauth:\/\/totp\/Pet%20Store:totp%40people\.test\?/);
      // The secret is sealed in the database.
      const stored = await prisma().user.findUniqueOrThrow({ where: { email } });
      expect(stored.totpSecret).not.toContain(secret);
      expect(await rt.twoFactor.confirm(session.user.id, "000000", "test").catch(code)).toBe(
        "validation_failed",
      );
      const { recoveryCodes } = await rt.twoFactor.confirm(session.user.id, totpAt(secret, 0), "test");
      expect(recoveryCodes).toHaveLength(10);
      expect(JSON.stringify(await prisma().recoveryCode.findMany())).not.toContain(recoveryCodes[0]);

      // A sign-in waits for a code; its session opens nothing meanwhile.
      at(5 * MINUTE);
      const pending = await rt.sessions.signIn({ email, password: PASSWORD }, client);
      expect(pending.stage).toBe("totp");
      expect(await rt.sessions.resolve(pending.token)).toBeUndefined();
      // The code of 5 minutes ago is refused, the current one opens the session under a new token.
      expect(
        await rt.sessions.completeSecondFactor(pending.token, totpAt(secret, 0), client).catch(code),
      ).toBe("unauthorized");
      const full = await rt.sessions.completeSecondFactor(pending.token, totpAt(secret, 5 * MINUTE), client);
      expect(full.token).not.toBe(pending.token);
      expect((await rt.sessions.resolve(full.token))?.user.email).toBe(email);
      expect(await rt.sessions.resolve(pending.token)).toBeUndefined();

      // The same code again (same 30 s step) is refused: a code is accepted once.
      const again = await rt.sessions.signIn({ email, password: PASSWORD }, client);
      expect(
        await rt.sessions.completeSecondFactor(again.token, totpAt(secret, 5 * MINUTE), client).catch(code),
      ).toBe("unauthorized");
      // The next step's code (30 s later, drift of one step) works.
      expect(
        (await rt.sessions.completeSecondFactor(again.token, totpAt(secret, 5 * MINUTE + 30_000), client))
          .user.email,
      ).toBe(email);

      // A recovery code works once.
      const third = await rt.sessions.signIn({ email, password: PASSWORD }, client);
      const recovery = recoveryCodes[0]?.toUpperCase() ?? "";
      await rt.sessions.completeSecondFactor(third.token, recovery, client);
      const fourth = await rt.sessions.signIn({ email, password: PASSWORD }, client);
      expect(await rt.sessions.completeSecondFactor(fourth.token, recovery, client).catch(code)).toBe(
        "unauthorized",
      );
      expect((await rt.twoFactor.status(session.user.id)).recoveryCodesLeft).toBe(9);

      // A pending sign-in lapses after 10 minutes.
      at(20 * MINUTE);
      expect(
        await rt.sessions.completeSecondFactor(fourth.token, totpAt(secret, 20 * MINUTE), client).catch(code),
      ).toBe("unauthorized");

      // Turning it off takes the password (or a code).
      expect(await rt.twoFactor.disable(session.user.id, { password: "wrong" }, "test").catch(code)).toBe(
        "validation_failed",
      );
      await rt.twoFactor.disable(session.user.id, { password: PASSWORD }, "test");
      expect((await rt.sessions.signIn({ email, password: PASSWORD }, client)).stage).toBeNull();
      const actions = await prisma().auditLog.findMany({
        where: {
          action: { in: ["user.twoFactorEnable", "user.twoFactorDisable"] },
          entityId: session.user.id,
        },
      });
      expect(actions.map((a) => a.action).sort()).toEqual(["user.twoFactorDisable", "user.twoFactorEnable"]);
    });

    it("sends a person who must have a second factor to enrolment, then opens their session", async () => {
      const email = "required@people.test";
      at(0);
      await rt.users.create({ email, name: "Req", role: "staff", password: PASSWORD }, "test");
      await rt.twoFactor.setStaffRequired(true, "test");
      try {
        const pending = await rt.sessions.signIn({ email, password: PASSWORD }, client);
        expect(pending.stage).toBe("enrol");
        expect(await rt.sessions.resolve(pending.token)).toBeUndefined();
        expect(await rt.sessions.promote(pending.token, client).catch(code)).toBe("conflict");
        const { secret } = await rt.twoFactor.begin(pending.user.id);
        await rt.twoFactor.confirm(pending.user.id, totpAt(secret, 0), `user:${email}`);
        const full = await rt.sessions.promote(pending.token, client);
        expect((await rt.sessions.resolve(full.token))?.user.email).toBe(email);
      } finally {
        await rt.twoFactor.setStaffRequired(false, "test");
      }
    });
  });
});
