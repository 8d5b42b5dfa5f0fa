/**
 * Account lock-out by strangers (docs/contract.md section 4, "Sign-in throttling"), on an injected clock: the
 * per-account failure count of clients without a device cookie drains over time (100 failures an hour), so once
 * a 15-minute block is over a single failure cannot start another; re-blocking takes as many failures as have
 * not drained (25 just after a block), and a browser with the account's device cookie is never blocked by
 * strangers at all.
 */
import { loadConfig } from "@petstore/config";
import type { AppError } from "@petstore/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseOf } from "../src/database/operations.ts";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { KNOWN_BLOCK_MS, type SignInAttempt } from "../src/sessions/throttle.ts";
import { createMigratedDatabase, type TemporaryDatabase } from "../src/testing/index.ts";

const start = new Date("2033-03-01T09:00:00Z");
const MINUTE = 60_000;

describe("per-account lock-out of clients without a device cookie", () => {
  let rt: Runtime;
  let db: TemporaryDatabase;
  let now = start;
  let fresh = 0;
  /** A new address each time: neither its per-client nor its per-account-and-client bucket ever blocks. */
  const stranger = (email: string): SignInAttempt => ({ email, ip: `2001:db8:${(++fresh).toString(16)}::1` });
  const at = (ms: number) => {
    now = new Date(start.getTime() + ms);
  };

  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_sign_in_lockout");
    rt = await openRuntime({
      config: loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: "silent", PASSWORD_HASH_COST: "10" }),
      logger: createLogger("silent"),
      clock: () => now,
    });
  });
  afterAll(async () => {
    await rt?.close();
    await db?.drop();
  });

  /** The account as 100 strangers' failures at `start` left it: blocked for 15 minutes. */
  async function lockedAtStart(email: string) {
    await databaseOf(rt).prisma.signInThrottle.create({
      data: {
        bucket: `account:${email}`,
        failures: 100,
        lastAttemptAt: start,
        blockedUntil: new Date(start.getTime() + 15 * MINUTE),
      },
    });
  }

  it("one failure per 15 minutes from a fresh address never locks the account again", async () => {
    const email = "drip@lockout.test";
    at(0);
    await lockedAtStart(email);
    expect(await rt.sessions.throttle.admit(stranger(email))).toEqual({
      admitted: false,
      retryAfterSeconds: 900,
    });
    // Eight hours of one wrong password right after each block would have ended.
    for (let cycle = 1; cycle <= 32; cycle++) {
      at(cycle * 15 * MINUTE + 1000);
      expect(await rt.sessions.throttle.admit(stranger(email))).toEqual({ admitted: true });
      // Anyone else without a device cookie (the owner on a new browser) is admitted right after it.
      expect(await rt.sessions.throttle.admit(stranger(email))).toEqual({ admitted: true });
    }
  });

  it("after a block, re-blocking takes the 25 failures that have not drained, not one", async () => {
    const email = "burst@lockout.test";
    at(0);
    await lockedAtStart(email);
    at(15 * MINUTE + 1000);
    for (let i = 0; i < 25; i++)
      expect(await rt.sessions.throttle.admit(stranger(email))).toEqual({ admitted: true });
    expect(await rt.sessions.throttle.admit(stranger(email))).toEqual({
      admitted: false,
      retryAfterSeconds: 900,
    });
  });

  it("the count drains at 100 failures an hour: half an hour after the block started, re-blocking takes 50 failures", async () => {
    const email = "drain@lockout.test";
    at(0);
    await lockedAtStart(email);
    at(30 * MINUTE);
    for (let i = 0; i < 50; i++)
      expect(await rt.sessions.throttle.admit(stranger(email))).toEqual({ admitted: true });
    expect(await rt.sessions.throttle.admit(stranger(email))).toMatchObject({ admitted: false });
  });

  it("refuses a blocked client from memory for up to KNOWN_BLOCK_MS after reading its block, then reads it again", async () => {
    const email = "flood@lockout.test";
    const ip = "198.51.100.77";
    at(0);
    const prisma = databaseOf(rt).prisma;
    await prisma.signInThrottle.create({
      data: {
        bucket: `client:${ip}`,
        failures: 40,
        lastAttemptAt: start,
        blockedUntil: new Date(start.getTime() + 10 * MINUTE),
      },
    });
    const refusals = async () =>
      (await prisma.signInThrottle.findUniqueOrThrow({ where: { bucket: `client:${ip}` } })).refusals;
    const attempt = (client: { ip: string; deviceCookie?: string }) =>
      rt.sessions.signIn({ email, password: "not the password" }, client).then(
        () => undefined,
        (error: unknown) => error as AppError,
      );
    // The first refusal is read and counted in the database.
    expect(await attempt({ ip })).toMatchObject({ code: "rate_limited", headers: { "Retry-After": "600" } });
    expect(await refusals()).toBe(1);
    // Within KNOWN_BLOCK_MS: refused from memory, with the block's own Retry-After, nothing written.
    at(KNOWN_BLOCK_MS - 1000);
    for (let i = 0; i < 5; i++)
      expect(await attempt({ ip })).toMatchObject({
        code: "rate_limited",
        headers: { "Retry-After": "596" },
      });
    expect(await refusals()).toBe(1);
    // A browser with a device cookie is decided by the database (its own bucket may admit it).
    expect(await attempt({ ip, deviceCookie: "not a valid cookie" })).toMatchObject({ code: "rate_limited" });
    expect(await refusals()).toBe(2);
    // KNOWN_BLOCK_MS after the last read (the device cookie's): read again.
    at(2 * KNOWN_BLOCK_MS);
    expect(await attempt({ ip })).toMatchObject({ code: "rate_limited" });
    expect(await refusals()).toBe(3);
    // Another client is not refused by this one's block.
    expect(await attempt({ ip: "198.51.100.78" })).toMatchObject({ code: "unauthorized" });
  });

  it("a browser with the account's device cookie is admitted throughout", async () => {
    const email = "owner@lockout.test";
    at(0);
    await lockedAtStart(email);
    const owner: SignInAttempt = { email, ip: "198.51.100.1", device: "owner-device-nonce" };
    expect(await rt.sessions.throttle.admit(owner)).toEqual({ admitted: true });
    await rt.sessions.throttle.succeeded(owner);
    for (let i = 0; i < 25; i++) await rt.sessions.throttle.admit(stranger(email));
    expect(await rt.sessions.throttle.admit(owner)).toEqual({ admitted: true });
  });
});
