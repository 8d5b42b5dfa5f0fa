/**
 * Sign-in that strangers cannot block (docs/contract.md section 4, "Sign-in throttling"), through tRPC against
 * PostgreSQL: the OWASP device-cookie scheme (a browser that signed in to an account before is not locked out
 * when strangers' failures block the account for everyone else, and has a failure limit of its own), IPv6
 * clients counted per /64, and refused attempts that write nothing but one counter increment.
 */
import { databaseOf } from "@petstore/core/testing";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { DEVICE_COOKIE } from "../../src/server/trpc/cookies";
import { createCaller } from "../../src/server/trpc/router";
import { type Harness, openHarness, PASSWORD, shapeOf } from "./support";

const ADMIN = "admin@example.com";
const STAFF = "staff@example.com";

interface Answer {
  /** `OK` or the tRPC error code. */
  code: string;
  retryAfterSeconds?: number | null;
  /** The device cookie value the answer set, if any. */
  device?: string;
}

describe("sign-in under attack", () => {
  let h: Harness;
  const prisma = () => databaseOf(h.rt).prisma;
  beforeAll(async () => {
    // Parallel attackers are the subject here, not the cap on password work (sign-in-work.test.ts in core), nor
    // the bounds of waiting for a pooled connection and of a statement, which 20 sign-ins at once can pass on a
    // busy machine: they queue for one account's throttle row, and the last one's lock wait is a statement's.
    h = await openHarness({
      PASSWORD_HASH_CONCURRENCY: "64",
      DATABASE_CONNECT_TIMEOUT_MS: "15000",
      DATABASE_STATEMENT_TIMEOUT_MS: "15000",
    });
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    h.setNow(undefined);
    await prisma().signInThrottle.deleteMany();
    h.rt.sessions.throttle.forgetBlocks();
  });

  /** One sign-in from `ip`, with the device cookie `device` when given. */
  async function signIn(ip: string, email: string, password: string, device?: string): Promise<Answer> {
    const resHeaders = new Headers();
    const caller = createCaller(
      await createInnerContext({ rt: h.rt, clientIp: ip, deviceCookie: device ?? null, resHeaders }),
    );
    try {
      await caller.auth.signIn({ email, password });
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      return { code: error.code, retryAfterSeconds: shapeOf(error).data.retryAfterSeconds };
    }
    const set = resHeaders.getSetCookie().find((c) => c.startsWith(`${DEVICE_COOKIE}=`));
    return { code: "OK", device: set?.slice(DEVICE_COOKIE.length + 1).split(";")[0] };
  }

  const start = new Date("2032-05-01T09:00:00Z");
  const at = (seconds: number) => h.setNow(new Date(start.getTime() + seconds * 1000));

  it("20 addresses x 5 wrong passwords: the owner's browser signs in at once; a new one once the 15 minutes are over", async () => {
    at(0);
    const owner = await signIn("198.51.100.50", ADMIN, PASSWORD);
    expect(owner.code).toBe("OK");
    expect(owner.device).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}\.[0-9]+\.[A-Za-z0-9_-]{43}$/);

    const attackers = Array.from({ length: 20 }, (_, i) => `203.0.113.${i + 1}`);
    const guesses = await Promise.all(
      attackers.map(async (ip) => {
        const codes: string[] = [];
        for (let i = 0; i < 5; i++) codes.push((await signIn(ip, ADMIN, `guess ${ip} ${i}`)).code);
        return codes;
      }),
    );
    expect(guesses.flat()).toEqual(Array(100).fill("UNAUTHORIZED"));

    // Strangers are now locked out of the account, whatever their address.
    const stranger = await signIn("198.51.100.99", ADMIN, PASSWORD);
    expect(stranger).toMatchObject({ code: "TOO_MANY_REQUESTS", retryAfterSeconds: 900 });
    // The owner's browser is not: from a new address, and even from an attacking one.
    expect((await signIn("192.0.2.201", ADMIN, PASSWORD, owner.device)).code).toBe("OK");
    expect((await signIn("203.0.113.1", ADMIN, PASSWORD, owner.device)).code).toBe("OK");
    const alerts = await prisma().auditLog.findMany({
      where: { action: "session.accountThrottled", entityId: ADMIN },
    });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ actor: "system", after: { scope: "account", failures: 100 } });

    // Without a device cookie, the owner signs in once the block is over, even after a stranger's further
    // failure: the account's count has drained by a quarter (100 an hour), so one failure cannot re-block it.
    at(901);
    expect((await signIn("203.0.113.77", ADMIN, "one more guess")).code).toBe("UNAUTHORIZED");
    expect((await signIn("198.51.100.99", ADMIN, PASSWORD)).code).toBe("OK");
    // 25 more failures (5 addresses x 5) do block it again, for 15 minutes, and the owner's browser stays in.
    for (const ip of attackers.slice(0, 5).map((a) => a.replace("203.0.113.", "203.0.114.")))
      for (let i = 0; i < 5; i++) await signIn(ip, ADMIN, `guess ${ip} ${i}`);
    expect(await signIn("198.51.100.98", ADMIN, PASSWORD)).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      retryAfterSeconds: 900,
    });
    expect((await signIn("192.0.2.202", ADMIN, PASSWORD, owner.device)).code).toBe("OK");
  });

  it("a device cookie has a limit of its own: 5 failures block it, not the account's other browsers or the address", async () => {
    at(0);
    const { device } = await signIn("198.51.100.60", STAFF, PASSWORD);
    for (let i = 0; i < 5; i++)
      expect((await signIn("198.51.100.60", STAFF, `typo ${i}`, device)).code).toBe("UNAUTHORIZED");
    expect(await signIn("198.51.100.60", STAFF, PASSWORD, device)).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      retryAfterSeconds: 60,
    });
    // The same address without that cookie, and another browser of the owner's, are not blocked.
    const other = await signIn("198.51.100.61", STAFF, PASSWORD);
    expect((await signIn("198.51.100.60", STAFF, PASSWORD)).code).toBe("OK");
    expect((await signIn("198.51.100.62", STAFF, PASSWORD, other.device)).code).toBe("OK");
    // Its back-off grows like any other bucket's.
    at(61);
    expect((await signIn("198.51.100.60", STAFF, "typo again", device)).code).toBe("UNAUTHORIZED");
    expect(await signIn("198.51.100.60", STAFF, PASSWORD, device)).toMatchObject({ retryAfterSeconds: 120 });
    at(182);
    expect((await signIn("198.51.100.60", STAFF, PASSWORD, device)).code).toBe("OK");
  });

  it("a device cookie counts only for its own accounts, only correctly signed and only for 90 days", async () => {
    at(0);
    const staffBrowser = await signIn("198.51.100.70", STAFF, PASSWORD);
    // Signing in to a second account on the same browser keeps the first account's token.
    const both = await signIn("198.51.100.70", ADMIN, PASSWORD, staffBrowser.device);
    expect(both.device?.split("~")).toHaveLength(2);
    const adminOnly = both.device?.split("~")[0] ?? "";
    /** Strangers' failures block both accounts for everyone without a device cookie for them. */
    const underAttack = async () => {
      await prisma().signInThrottle.deleteMany();
      h.rt.sessions.throttle.forgetBlocks();
      for (const email of [ADMIN, STAFF])
        await prisma().signInThrottle.create({
          data: {
            bucket: `account:${email}`,
            failures: 100,
            lastAttemptAt: h.rt.clock(),
            blockedUntil: new Date(h.rt.clock().getTime() + 900_000),
          },
        });
    };
    await underAttack();
    expect((await signIn("192.0.2.70", ADMIN, PASSWORD, both.device)).code).toBe("OK");
    await underAttack();
    expect((await signIn("192.0.2.70", STAFF, PASSWORD, both.device)).code).toBe("OK");
    // The staff member's token does not open the admin's account.
    await underAttack();
    expect((await signIn("192.0.2.70", ADMIN, PASSWORD, staffBrowser.device)).code).toBe("TOO_MANY_REQUESTS");
    // A token with a changed signature, or moved to another account, counts for nothing.
    const [userId, nonce, issued, signature = ""] = adminOnly.split(".");
    const flipped = `${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`;
    expect(
      (await signIn("192.0.2.70", ADMIN, PASSWORD, `${userId}.${nonce}.${issued}.${flipped}`)).code,
    ).toBe("TOO_MANY_REQUESTS");
    const staffId = (await prisma().user.findUniqueOrThrow({ where: { email: STAFF } })).id;
    expect(
      (await signIn("192.0.2.70", STAFF, PASSWORD, `${staffId}.${nonce}.${issued}.${signature}`)).code,
    ).toBe("TOO_MANY_REQUESTS");
    // 90 days after it was issued, a token no longer counts.
    at(90 * 86_400 - 60);
    await underAttack();
    expect((await signIn("192.0.2.70", ADMIN, PASSWORD, adminOnly)).code).toBe("OK");
    at(90 * 86_400);
    await underAttack();
    expect((await signIn("192.0.2.70", ADMIN, PASSWORD, adminOnly)).code).toBe("TOO_MANY_REQUESTS");
  });

  it("counts IPv6 clients per /64: new addresses in one network are the same client", async () => {
    at(0);
    for (let i = 1; i <= 5; i++)
      expect((await signIn(`2001:db8:aa:1::${i}`, STAFF, `guess ${i}`)).code).toBe("UNAUTHORIZED");
    expect((await signIn("2001:db8:aa:1:ffff:ffff:ffff:ffff", STAFF, PASSWORD)).code).toBe(
      "TOO_MANY_REQUESTS",
    );
    expect((await signIn("2001:db8:aa:2::1", STAFF, PASSWORD)).code).toBe("OK");
    // Per client, over any accounts: 20 failures from 20 addresses of one /64.
    for (let i = 1; i <= 20; i++)
      expect((await signIn(`2001:db8:bb:1::${i.toString(16)}`, `nobody${i}@example.com`, "x")).code).toBe(
        "UNAUTHORIZED",
      );
    expect((await signIn("2001:db8:bb:1:1:2:3:4", ADMIN, PASSWORD)).code).toBe("TOO_MANY_REQUESTS");
    // An IPv4-mapped address is its IPv4 client.
    for (let i = 0; i < 5; i++) await signIn("192.0.2.90", STAFF, `guess ${i}`);
    expect((await signIn("::ffff:192.0.2.90", STAFF, PASSWORD)).code).toBe("TOO_MANY_REQUESTS");
  });

  it("refused attempts write nothing but a counter increment per block read, however many random emails they try", async () => {
    at(0);
    const ip = "192.0.2.240";
    // The client is blocked (20 failures over any accounts; written directly rather than checked 20 times).
    await prisma().signInThrottle.create({
      data: {
        bucket: `client:${ip}`,
        failures: 20,
        lastAttemptAt: start,
        blockedUntil: new Date(start.getTime() + 60_000),
      },
    });
    const rowsBefore = await prisma().signInThrottle.findMany({ orderBy: { bucket: "asc" } });
    const auditBefore = await prisma().auditLog.count();
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => signIn(ip, `random-${round}-${i}@example.com`, "x")),
      );
      expect(answers.map((a) => a.code)).toEqual(Array(10).fill("TOO_MANY_REQUESTS"));
    }
    const rowsAfter = await prisma().signInThrottle.findMany({ orderBy: { bucket: "asc" } });
    // The first round's attempts read the block (all ten may, at once); the rest are refused from memory.
    const counted = rowsAfter[0]?.refusals ?? 0;
    expect(counted).toBeGreaterThanOrEqual(1);
    expect(counted).toBeLessThanOrEqual(10);
    expect(rowsAfter).toEqual(
      rowsBefore.map((row) => ({ ...row, refusals: counted, auditedBlock: row.blockedUntil })),
    );
    // The first refusal of the block is in the audit log, and nothing else.
    const audit = await prisma().auditLog.findMany({ skip: auditBefore, orderBy: { id: "asc" } });
    expect(audit.map((entry) => [entry.action, entry.entityId])).toEqual([["session.throttled", ip]]);
  });

  it("a refused attempt opens no locking transaction: it answers while another holds its account's row", async () => {
    at(0);
    const ip = "192.0.2.241";
    await prisma().signInThrottle.createMany({
      data: [
        {
          bucket: `client:${ip}`,
          failures: 20,
          lastAttemptAt: start,
          blockedUntil: new Date(start.getTime() + 60_000),
        },
        { bucket: `account:${STAFF}`, failures: 3, lastAttemptAt: start },
      ],
    });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = prisma().$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1 FROM "SignInThrottle" WHERE "bucket" = ${`account:${STAFF}`} FOR UPDATE`;
        locked();
        await held;
      },
      { timeout: 30_000 },
    );
    await isLocked;
    try {
      // An attempt that locked its rows would wait for the holder; a refused one only reads and counts.
      const answer = await Promise.race([
        signIn(ip, STAFF, PASSWORD),
        new Promise<Answer>((resolve) =>
          setTimeout(() => resolve({ code: "still waiting after 10 s" }), 10_000),
        ),
      ]);
      expect(answer).toMatchObject({ code: "TOO_MANY_REQUESTS" });
    } finally {
      release();
      await holder;
    }
  });
});
