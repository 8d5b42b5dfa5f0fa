/**
 * Usage figures summed in the database (usage/sums.ts, UsageHourTotal, UsageDay) equal the figures summed in Node from
 * every stored hourly row plus the instance's unflushed rows (fixtures/usage-reference.ts), whatever happens
 * in between: requests of several keys and of none, at any hour of the last 95 days or a little ahead of the
 * clock, flushed or not by two instances sharing the database, a key's day reset, bans, and the retention
 * purge. On PostgreSQL and on the embedded PGlite (docs/contract.md section 4 "Usage and analytics").
 */
import { loadConfig } from "@petstore/config";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { databaseOf } from "../src/testing/index.ts";
import { usageHourWriter } from "../src/usage/flush.ts";
import { AnalyticsRecorder, OPERATIONS, OUTCOMES, type UsageHourRow } from "../src/usage/recorder.ts";
import { usageSourcesOf } from "../src/usage/rows.ts";
import { createUsageService, type UsageService } from "../src/usage/service.ts";
import { DAY_MS } from "../src/utc-day.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";
import {
  NO_KEY,
  type ReferenceRows,
  referenceDaily,
  referenceToday,
  referenceTraffic,
  referenceWindowSums,
} from "./fixtures/usage-reference.ts";

const HOUR_MS = 3_600_000;
const BASE = Date.parse("2031-03-10T00:00:00Z");

const action = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("record" as const),
      instance: fc.integer({ min: 0, max: 1 }),
      key: fc.integer({ min: 0, max: 3 }),
      hoursAgo: fc.integer({ min: -30, max: 24 * 95 }),
      minute: fc.integer({ min: 0, max: 59 }),
      operation: fc.constantFrom(...OPERATIONS),
      outcome: fc.constantFrom(...OUTCOMES),
      // A rate_limited request with a window is stored under its window's outcome; the figures fold them back.
      window: fc.constantFrom(undefined, "minute" as const, "day" as const),
      durationMs: fc.double({ min: 0, max: 15_000, noNaN: true }),
      n: fc.integer({ min: 1, max: 4 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("flush" as const), instance: fc.integer({ min: 0, max: 1 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("reset" as const), key: fc.integer({ min: 0, max: 2 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("ban" as const),
      key: fc.integer({ min: 0, max: 2 }),
      hoursAgo: fc.integer({ min: 0, max: 24 * 40 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("purge" as const), days: fc.integer({ min: 1, max: 60 }) }),
  },
);

describe.each(["PostgreSQL", "PGlite"] as const)("usage figures summed in the database on %s", (kind) => {
  let database: TestDatabase | undefined;
  let rt: Runtime;
  let now = BASE;
  const keys: string[] = [];
  let instances: { recorder: AnalyticsRecorder; usage: UsageService }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_usage_sums");
    rt = await openRuntime({
      config: loadConfig({
        LOG_LEVEL: "silent",
        ANALYTICS_ENABLED: "false",
        ...database.env,
      }),
      logger: createLogger("silent"),
      clock: () => new Date(now),
    });
    const prisma = databaseOf(rt).prisma;
    for (const name of ["a", "b", "c"])
      keys.push((await rt.apiKeys.create({ name, plan: "pro" }, "test")).id);
    // Two instances on one database, each with its own unflushed rows; their timers never fire during the test,
    // so rows move to the database only when the test flushes them.
    instances = [0, 1].map(() => {
      const recorder = new AnalyticsRecorder({
        write: usageHourWriter(prisma),
        recent: { append: async () => {}, list: async () => [], close: async () => {} },
        logger: createLogger("silent"),
        intervalMs: 1e9,
      });
      const usage = createUsageService({ prisma, clock: () => new Date(now) }, usageSourcesOf(recorder));
      return { recorder, usage };
    });
  });
  afterAll(async () => {
    for (const i of instances) await i.recorder.close();
    await rt?.close();
    await database?.remove();
  });

  async function storedRows(): Promise<UsageHourRow[]> {
    const rows = await databaseOf(rt).prisma.usageHour.findMany();
    return rows.map((r) => ({
      apiKeyId: r.apiKeyId,
      hour: r.hour.getTime(),
      operation: r.operation as UsageHourRow["operation"],
      outcome: r.outcome as UsageHourRow["outcome"],
      requests: r.requests,
      latency: r.latency,
    }));
  }

  it("equal the figures summed in Node from every stored row and the unflushed ones", async () => {
    const prisma = databaseOf(rt).prisma;
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { maxLength: 30 }),
        fc.integer({ min: 0, max: DAY_MS - 1 }),
        fc.integer({ min: 0, max: 20 }),
        async (actions, timeOfDay, day) => {
          now = BASE + day * DAY_MS + timeOfDay;
          for (const a of actions) {
            if (a.kind === "record") {
              const at = now - (now % HOUR_MS) - a.hoursAgo * HOUR_MS + a.minute * 60_000;
              for (let i = 0; i < a.n; i++)
                instances[a.instance]?.recorder.record({
                  keyId: keys[a.key],
                  operation: a.operation,
                  outcome: a.outcome,
                  ...(a.window ? { window: a.window } : {}),
                  status: 200,
                  durationMs: a.durationMs,
                  at,
                  clientIp: "192.0.2.1",
                  requestId: "r",
                });
            } else if (a.kind === "flush") await instances[a.instance]?.recorder.flush();
            else if (a.kind === "reset") await instances[0]?.usage.resetToday(keys[a.key] as string, "test");
            else if (a.kind === "purge") await instances[1]?.usage.purgeOlderThan(a.days);
            else
              await prisma.auditLog.create({
                data: {
                  at: new Date(now - a.hoursAgo * HOUR_MS),
                  actor: "system",
                  action: "apiKey.ban",
                  entityType: "apiKey",
                  entityId: keys[a.key] as string,
                },
              });
          }
          const stored = await storedRows();
          for (const { recorder, usage } of instances) {
            const rows: ReferenceRows = { stored, pending: recorder.pendingRows() };
            for (const days of [1, 7, 30, 90]) {
              expect(await usage.traffic(undefined, days)).toEqual(
                referenceTraffic(rows, undefined, days, now),
              );
              for (const key of keys) {
                expect(await usage.traffic(key, days)).toEqual(referenceTraffic(rows, key, days, now));
                const bans = await prisma.auditLog.findMany({
                  where: { entityType: "apiKey", entityId: key, action: "apiKey.ban" },
                  select: { at: true },
                });
                expect(await usage.daily(key, days)).toEqual(
                  referenceDaily(
                    rows,
                    bans.map((b) => b.at),
                    key,
                    days,
                    now,
                  ),
                );
              }
            }
            const today = referenceToday(rows, now);
            for (const key of keys) expect(await usage.requestsToday(key)).toBe(today.get(key) ?? 0);
            // The keys list's figures of each shown key, all keys of a page at once.
            const bans30d = await Promise.all(
              keys.map((id) =>
                prisma.auditLog.count({
                  where: {
                    entityType: "apiKey",
                    entityId: id,
                    action: "apiKey.ban",
                    at: { gte: new Date(now - 30 * DAY_MS), lte: new Date(now) },
                  },
                }),
              ),
            );
            expect(await usage.withWindowSums(keys.map((id) => ({ id })))).toEqual(
              keys.map((id, i) => ({ id, ...referenceWindowSums(rows, id, now), bans30d: bans30d[i] })),
            );
            const overview = await usage.keyOverview();
            today.delete(NO_KEY);
            expect(overview.requests.today).toBe([...today.values()].reduce((n, v) => n + v, 0));
            expect(overview.topKeys.map((k) => k.requestsToday)).toEqual(
              [...today.values()]
                .filter((n) => n > 0)
                .sort((x, y) => y - x)
                .slice(0, 5),
            );
            const yesterday = referenceToday(rows, now - DAY_MS);
            yesterday.delete(NO_KEY);
            expect(overview.requests.yesterday).toBe([...yesterday.values()].reduce((n, v) => n + v, 0));
          }
          // The whole API's hourly sums stay equal to the per-key rows summed over keys.
          const drift = await prisma.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM (
              SELECT "hour", "operation", "outcome", sum("requests")::int AS requests FROM "UsageHour" GROUP BY 1, 2, 3
            ) AS s FULL JOIN "UsageHourTotal" AS t USING ("hour", "operation", "outcome")
            WHERE coalesce(s.requests, 0) <> coalesce(t."requests", 0)`;
          expect(drift[0]?.n).toBe(0);
          // Each key's days stay equal to its hourly rows summed per day.
          const since = new Date(now - 100 * DAY_MS).toISOString();
          const dayDrift = await prisma.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM (
              SELECT "apiKeyId", date_trunc('day', "hour") AS "day",
                     sum("requests") FILTER (WHERE "outcome" IN ('2xx', '4xx', '5xx'))::int AS admitted,
                     sum("requests") FILTER (WHERE "outcome" IN ('2xx', '4xx', '5xx') AND "operation" = 'getPet')::int AS "getPet",
                     sum("requests") FILTER (WHERE "outcome" IN ('rate_limited', 'rate_limited_minute', 'rate_limited_day',
                                                                   'rate_limited_month', 'key_banned'))::int AS refused
              FROM "UsageHour" WHERE "hour" >= date_trunc('day', ${since}::timestamp(3)) GROUP BY 1, 2
            ) AS s FULL JOIN (SELECT * FROM "UsageDay" WHERE "day" >= date_trunc('day', ${since}::timestamp(3))) AS d
              USING ("apiKeyId", "day")
            WHERE coalesce(s.admitted, 0) <> coalesce(d."admitted", 0) OR coalesce(s."getPet", 0) <> coalesce(d."getPet", 0)
               OR coalesce(s.refused, 0) <> coalesce(d."refused", 0)`;
          expect(dayDrift[0]?.n).toBe(0);
        },
      ),
      // Seeded, so that a failure reproduces.
      { numRuns: kind === "PostgreSQL" ? 16 : 8, seed: 20310310, endOnFailure: true },
    );
    // Each run checks every window of every key on both instances: tens of queries, slow on a busy machine.
  }, 120_000);
});
