/**
 * Housekeeping (docs/contract.md section 5): a round deletes expired idempotency records and sessions, sign-in
 * throttle rows nobody needs any more and usage older than 90 days, keeps everything still in force, and on
 * PostgreSQL runs on one instance at a time (advisory lock). On PostgreSQL and on the embedded PGlite.
 */
import { loadConfig } from "@petstore/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseOf } from "../src/database/operations.ts";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { utcDay } from "../src/utc-day.ts";
import { messageIdFloor } from "../src/webhooks/outbox.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

const HOUR = 3_600_000;

/** 20 hex digits naming a test's rows. */
const suffix = (tag: string) => Buffer.from(tag).toString("hex").padEnd(20, "0");
/** A message id written at `when` (src/webhooks/outbox.ts `messageIdFloor`). */
const messageId = (when: Date, tag: string) => `${messageIdFloor(when)}${suffix(tag)}`;
const now = new Date("2026-06-10T12:00:00Z");
const at = (ms: number) => new Date(now.getTime() + ms);

describe.each(["pglite", "postgres"] as const)("housekeeping on %s", (kind) => {
  let rt: Runtime;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_housekeeping");
    rt = await openRuntime({
      config: loadConfig({
        ...database.env,
        LOG_LEVEL: "silent",
      }),
      logger: createLogger("silent"),
      clock: () => now,
    });
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  /** Writes one stale and one fresh row of every kind housekeeping looks at (names `old*` and `fresh*`). */
  async function writeRows(tag: string) {
    const prisma = databaseOf(rt).prisma;
    const key = await rt.apiKeys.create({ name: `hk ${tag}`, plan: "free" }, "test");
    const user = await rt.users.create(
      { email: `hk-${tag}@example.com`, name: "H", role: "staff", password: "a long enough password" },
      "test",
    );
    await prisma.idempotencyRecord.createMany({
      data: [
        { apiKeyId: key.id, key: "old", fingerprint: "f", expiresAt: at(-1) },
        { apiKeyId: key.id, key: "fresh", fingerprint: "f", expiresAt: at(HOUR) },
      ],
    });
    await prisma.session.createMany({
      data: [
        { tokenHash: `old-${tag}`, userId: user.id, expiresAt: at(-1) },
        { tokenHash: `fresh-${tag}`, userId: user.id, expiresAt: at(HOUR) },
      ],
    });
    await prisma.signInThrottle.createMany({
      data: [
        // Quiet for two hours: forgotten (the throttle forgets a bucket after one hour).
        { bucket: `client:old-${tag}`, failures: 3, lastAttemptAt: at(-2 * HOUR) },
        // Its block ended 30 minutes ago: it still counts, so it stays.
        {
          bucket: `client:fresh-blocked-${tag}`,
          failures: 30,
          lastAttemptAt: at(-2 * HOUR),
          blockedUntil: at(-HOUR / 2),
        },
        { bucket: `client:fresh-${tag}`, failures: 1, lastAttemptAt: at(-HOUR / 6) },
      ],
    });
    // Hourly analytics rows: kept ANALYTICS_RETENTION_DAYS (default 90).
    await prisma.usageHour.createMany({
      data: [
        {
          apiKeyId: key.id,
          hour: utcDay(now, -91),
          operation: "listPets",
          outcome: "2xx",
          requests: 1,
          latency: [],
        },
        {
          apiKeyId: key.id,
          hour: utcDay(now, -89),
          operation: "listPets",
          outcome: "2xx",
          requests: 2,
          latency: [],
        },
      ],
    });
    // Webhook messages are kept 30 days (with their deliveries and attempts); their ids begin with the time.
    await prisma.webhookEvent.createMany({
      data: [-31, -29].map((days) => ({
        id: messageId(at(days * 24 * HOUR), tag),
        type: "pet.created",
        data: "{}",
        occurredAt: at(days * 24 * HOUR),
      })),
    });
    return key.id;
  }

  async function remaining(keyId: string, tag: string) {
    const prisma = databaseOf(rt).prisma;
    return {
      idempotency: (await prisma.idempotencyRecord.findMany({ where: { apiKeyId: keyId } })).map(
        (r) => r.key,
      ),
      sessions: (await prisma.session.findMany({ where: { tokenHash: { endsWith: `-${tag}` } } })).map(
        (s) => s.tokenHash,
      ),
      throttles: (await prisma.signInThrottle.findMany({ where: { bucket: { endsWith: `-${tag}` } } }))
        .map((t) => t.bucket)
        .sort(),
      usageHours: (await prisma.usageHour.findMany({ where: { apiKeyId: keyId } })).map((u) => u.hour),
      webhookMessages: (await prisma.webhookEvent.findMany({ where: { id: { endsWith: suffix(tag) } } })).map(
        (e) => (e.id === messageId(at(-29 * 24 * HOUR), tag) ? "new" : e.id),
      ),
    };
  }

  it("deletes rows past their horizon and keeps the ones still in force", async () => {
    const keyId = await writeRows("a");
    expect(await rt.housekeeping.run()).toEqual({
      skipped: false,
      deleted: {
        idempotencyRecords: 1,
        sessions: 1,
        endedSessions: 0,
        signInThrottles: 1,
        passwordResets: 0,
        usageHours: 1,
        webhookMessages: 1,
        requestLog: 0,
        usageAlerts: 0,
      },
    });
    expect(await remaining(keyId, "a")).toEqual({
      idempotency: ["fresh"],
      sessions: ["fresh-a"],
      throttles: ["client:fresh-a", "client:fresh-blocked-a"],
      usageHours: [utcDay(now, -89)],
      webhookMessages: ["new"],
    });
    // A second round finds nothing more.
    const again = await rt.housekeeping.run();
    expect(again.skipped === false && Object.values(again.deleted).every((n) => n === 0)).toBe(true);
  });

  it("runs purges other modules register", async () => {
    let seen: Date | undefined;
    rt.housekeeping.register("extra", async (_prisma, when) => {
      seen = when;
      return 7;
    });
    const report = await rt.housekeeping.run();
    expect(report.skipped === false && report.deleted.extra).toBe(7);
    expect(seen).toEqual(now);
  });

  it("on schedule, runs a round at once (and stops with the runtime)", async () => {
    const keyId = await writeRows("b");
    rt.housekeeping.schedule();
    await rt.housekeeping.stop(); // waits for the round in progress
    expect((await remaining(keyId, "b")).sessions).toEqual(["fresh-b"]);
  });

  it.runIf(kind === "postgres")(
    "purges on one instance at a time: skips while another instance holds the lock",
    async () => {
      const keyId = await writeRows("c");
      const other = await openRuntime({
        config: loadConfig({ ...database?.env, LOG_LEVEL: "silent" }),
        logger: createLogger("silent"),
        clock: () => now,
      });
      try {
        // The other instance is in the middle of its round: it holds the lock until its transaction ends.
        await databaseOf(other).prisma.$transaction(async (tx) => {
          const [held] = await tx.$queryRaw<{ locked: boolean }[]>`
            SELECT pg_try_advisory_xact_lock(hashtext('petstore:housekeeping')) AS "locked"`;
          expect(held?.locked).toBe(true);
          expect(await rt.housekeeping.run()).toEqual({ skipped: true });
        });
        expect((await remaining(keyId, "c")).sessions.sort()).toEqual(["fresh-c", "old-c"]);
        expect((await rt.housekeeping.run()).skipped).toBe(false);
        expect((await remaining(keyId, "c")).sessions).toEqual(["fresh-c"]);
      } finally {
        await other.close();
      }
    },
  );
});
