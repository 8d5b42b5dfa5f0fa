/**
 * Usage figures stay exact while a flush moves an instance's counted requests into the database: between the
 * flush's commit and its end the rows are both stored and still pending, and a figure read then counts each
 * request once, not twice (usage/rows.ts `readWithPending`; docs/contract.md section 4 "Usage and analytics").
 * On PostgreSQL and on the embedded PGlite.
 */
import { loadConfig } from "@petstore/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { databaseOf } from "../src/testing/index.ts";
import { usageHourWriter } from "../src/usage/flush.ts";
import { AnalyticsRecorder } from "../src/usage/recorder.ts";
import { usageSourcesOf } from "../src/usage/rows.ts";
import { createUsageService } from "../src/usage/service.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

const NOW = Date.parse("2031-03-10T12:34:00Z");

describe.each(["PostgreSQL", "PGlite"] as const)("usage figures during a flush on %s", (kind) => {
  let database: TestDatabase | undefined;
  let rt: Runtime;

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_usage_flush");
    rt = await openRuntime({
      config: loadConfig({
        LOG_LEVEL: "silent",
        ANALYTICS_ENABLED: "false",
        ...database.env,
      }),
      logger: createLogger("silent"),
      clock: () => new Date(NOW),
    });
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  it("counts each request once when read between the flush's commit and its end", async () => {
    const prisma = databaseOf(rt).prisma;
    const key = await rt.apiKeys.create({ name: "busy", plan: "pro" }, "test");
    let committed!: () => void;
    const commit = new Promise<void>((resolve) => {
      committed = resolve;
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = usageHourWriter(prisma);
    const recorder = new AnalyticsRecorder({
      // Stores the rows, then holds the flush open: the rows are now in the database and still pending.
      write: async (rows) => {
        await store(rows);
        committed();
        await held;
      },
      recent: { append: async () => {}, list: async () => [], close: async () => {} },
      logger: createLogger("silent"),
      intervalMs: 1e9,
    });
    const usage = createUsageService({ prisma, clock: () => new Date(NOW) }, usageSourcesOf(recorder));
    for (let i = 0; i < 7; i++)
      recorder.record({
        keyId: key.id,
        operation: "listPets",
        outcome: "2xx",
        status: 200,
        durationMs: 3,
        at: NOW - 1000,
        clientIp: "127.0.0.1",
        requestId: `r${i}`,
      });
    const flushed = recorder.flush();
    await commit;

    const reads = Promise.all([
      usage.keyOverview(),
      usage.withRequestsToday([{ id: key.id }]),
      usage.daily(key.id, 1),
      usage.traffic(key.id, 1),
    ]);
    setTimeout(release, 50);
    const [overview, [listed], [day], traffic] = await reads;
    await flushed;

    expect(overview.topKeys.find((k) => k.id === key.id)?.requestsToday).toBe(7);
    expect(overview.requests.today).toBe(7);
    expect(listed?.requestsToday).toBe(7);
    expect(day?.requests).toBe(7);
    expect(traffic.requestsToday).toBe(7);
    await recorder.close();
  });
});
