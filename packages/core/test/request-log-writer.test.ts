/**
 * The request log's writer (usage/request-log.ts `requestLogWriter`) on PostgreSQL and on the embedded PGlite:
 * a flush stores every entry as it was pushed, field for field, including nulls and paths with quotes,
 * backslashes, commas, braces and letters beyond ASCII (the characters an array or JSON encoding must escape), and
 * aggregate rows; each flush keeps every account within its newest REQUEST_LOG_PER_ACCOUNT rows, deleting the oldest.
 */
import { loadConfig } from "@petstore/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { databaseOf } from "../src/testing/index.ts";
import {
  REQUEST_LOG_PER_ACCOUNT,
  type RequestLogColumns,
  type RequestLogEntry,
  requestLogWriter,
} from "../src/usage/request-log.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

const ACCOUNT = "6f1c1c9e-5a43-4a53-9d53-0d1d3c2b7a10";
const KEY = "0b7e3f0e-2f49-4c35-8a57-55a4f5d1f0c2";

const entries: RequestLogEntry[] = [
  {
    accountId: ACCOUNT,
    apiKeyId: KEY,
    keyPrefix: "pet_test_abc",
    at: Date.parse("2031-03-10T12:00:00.123Z"),
    method: "GET",
    path: `/v1/pets?name="a,b"&q=\\{x}&city=Zürich&emoji=🐕`,
    operation: "listPets",
    status: 200,
    errorCode: null,
    durationMs: 1.5,
    requestId: "req-1",
    minuteRemaining: 59,
    dayRemaining: 9_999,
    refusedBy: null,
    requests: 1,
    firstAt: null,
  },
  {
    accountId: ACCOUNT,
    apiKeyId: KEY,
    keyPrefix: "pet_test_abc",
    at: Date.parse("2031-03-10T12:00:01Z"),
    method: "POST",
    path: "/v1/pets",
    operation: "createPet",
    status: 429,
    errorCode: "rate_limited",
    durationMs: 0.25,
    requestId: 'req "2"',
    minuteRemaining: null,
    dayRemaining: null,
    refusedBy: "minute",
    requests: 1,
    firstAt: null,
  },
  {
    accountId: ACCOUNT,
    apiKeyId: KEY,
    keyPrefix: "pet_test_abc",
    at: Date.parse("2031-03-10T12:00:04.5Z"),
    method: "",
    path: "",
    operation: "createPet",
    status: 429,
    errorCode: "rate_limited",
    durationMs: 0.5,
    requestId: "",
    minuteRemaining: 0,
    dayRemaining: 9_000,
    refusedBy: "minute",
    requests: 4_321,
    firstAt: Date.parse("2031-03-10T12:00:01.5Z"),
  },
];

/** `rows` as a flush's columns. */
function columnsOf(rows: RequestLogEntry[]): RequestLogColumns {
  const fields = Object.keys(rows[0] as RequestLogEntry) as (keyof RequestLogEntry)[];
  return Object.fromEntries(fields.map((f) => [f, rows.map((r) => r[f])])) as unknown as RequestLogColumns;
}

describe.each(["PostgreSQL", "PGlite"] as const)("request log writer on %s", (kind) => {
  let database: TestDatabase | undefined;
  let rt: Runtime;
  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_request_log_writer");
    rt = await openRuntime({
      config: loadConfig({ LOG_LEVEL: "silent", ANALYTICS_ENABLED: "false", ...database.env }),
      logger: createLogger("silent"),
    });
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  it("stores every entry of a flush as pushed, field for field", async () => {
    const db = databaseOf(rt);
    await requestLogWriter((query) => db.queryRows(query))(columnsOf(entries));
    const stored = await db.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT "accountId"::text, "apiKeyId"::text, "keyPrefix", "at", "method", "path", "operation", "status",
        "errorCode", "durationMs", "requestId", "minuteRemaining", "dayRemaining", "refusedBy", "requests",
        "firstAt"
      FROM "RequestLogEntry" WHERE "accountId" = ${ACCOUNT}::uuid ORDER BY "at"`;
    expect(
      stored.map((row) => ({
        ...row,
        at: (row.at as Date).getTime(),
        firstAt: (row.firstAt as Date | null)?.getTime() ?? null,
      })),
    ).toEqual(entries);
    expect(await tallyOf(ACCOUNT)).toBe(entries.length);
  });

  it("keeps an account at its newest 100,000 rows at every flush, the oldest deleted, others untouched", async () => {
    const db = databaseOf(rt);
    const full = "7a2d4c1e-0b3f-4e4a-9c61-2f5e8d9a0b11";
    const base = Date.parse("2031-03-11T00:00:00Z");
    // The account's rows as many flushes left them: the newest 100,000 minus 3, with their tally.
    await db.prisma.$executeRaw`
      INSERT INTO "RequestLogEntry" ("accountId", "apiKeyId", "keyPrefix", "at", "method", "path", "operation",
        "status", "durationMs", "requestId")
      SELECT ${full}::uuid, ${KEY}::uuid, 'pet_test_abc', to_timestamp((${base}::float8 + g) / 1000.0), 'GET',
        '/v1/pets', 'listPets', 200, 1, 'bulk-' || g
      FROM generate_series(1, ${REQUEST_LOG_PER_ACCOUNT - 3}::int) g`;
    await db.prisma.$executeRaw`
      INSERT INTO "RequestLogTally" ("accountId", "rows") VALUES (${full}::uuid, ${REQUEST_LOG_PER_ACCOUNT - 3}::int)`;
    const flush = Array.from({ length: 10 }, (_, i) => ({
      ...(entries[0] as RequestLogEntry),
      accountId: full,
      at: base + REQUEST_LOG_PER_ACCOUNT + i,
      requestId: `new-${i}`,
    }));
    await requestLogWriter((query) => db.queryRows(query))(columnsOf(flush));
    const count = (requestId?: string) =>
      db.prisma.requestLogEntry.count({ where: { accountId: full, ...(requestId ? { requestId } : {}) } });
    expect(await count()).toBe(REQUEST_LOG_PER_ACCOUNT);
    expect(await tallyOf(full)).toBe(REQUEST_LOG_PER_ACCOUNT);
    expect([await count("bulk-7"), await count("bulk-8"), await count("new-0")]).toEqual([0, 1, 1]);
    expect(await db.prisma.requestLogEntry.count({ where: { accountId: ACCOUNT } })).toBe(entries.length);
  });

  it("keeps the bound when several instances flush the same account at once", async () => {
    const db = databaseOf(rt);
    const busy = "3c9e1f5a-8d2b-4b7e-a1f0-6e4d2c8b9a77";
    const base = Date.parse("2031-03-12T00:00:00Z");
    await db.prisma.$executeRaw`
      INSERT INTO "RequestLogEntry" ("accountId", "apiKeyId", "keyPrefix", "at", "method", "path", "operation",
        "status", "durationMs", "requestId")
      SELECT ${busy}::uuid, ${KEY}::uuid, 'pet_test_abc', to_timestamp((${base}::float8 + g) / 1000.0), 'GET',
        '/v1/pets', 'listPets', 200, 1, 'bulk-' || g
      FROM generate_series(1, ${REQUEST_LOG_PER_ACCOUNT - 5}::int) g`;
    await db.prisma.$executeRaw`
      INSERT INTO "RequestLogTally" ("accountId", "rows") VALUES (${busy}::uuid, ${REQUEST_LOG_PER_ACCOUNT - 5}::int)`;
    const flushOf = (instance: number) =>
      columnsOf(
        Array.from({ length: 20 }, (_, i) => ({
          ...(entries[0] as RequestLogEntry),
          accountId: busy,
          at: base + REQUEST_LOG_PER_ACCOUNT + i,
          requestId: `i${instance}-${i}`,
        })),
      );
    const write = requestLogWriter((query) => db.queryRows(query));
    await Promise.all([1, 2, 3, 4].map((instance) => write(flushOf(instance))));
    expect(await db.prisma.requestLogEntry.count({ where: { accountId: busy } })).toBe(
      REQUEST_LOG_PER_ACCOUNT,
    );
    expect(await tallyOf(busy)).toBe(REQUEST_LOG_PER_ACCOUNT);

    // A trim that fails leaves the flush written (a retry would write it twice); the next flush trims.
    const failures: unknown[] = [];
    let statements = 0;
    const failingTrim = requestLogWriter(
      (query) => (++statements === 2 ? Promise.reject(new Error("lock timeout")) : db.queryRows(query)),
      (error) => failures.push(error),
    );
    await failingTrim(flushOf(5));
    expect(failures).toHaveLength(1);
    expect(await tallyOf(busy)).toBe(REQUEST_LOG_PER_ACCOUNT + 20);
    await write(flushOf(6));
    expect(await db.prisma.requestLogEntry.count({ where: { accountId: busy } })).toBe(
      REQUEST_LOG_PER_ACCOUNT,
    );
    expect(await db.prisma.requestLogEntry.count({ where: { requestId: { startsWith: "i6-" } } })).toBe(20);
  });

  /** The tally of `accountId`'s rows. */
  async function tallyOf(accountId: string): Promise<number | undefined> {
    const [row] = await databaseOf(rt).prisma.$queryRaw<{ rows: number }[]>`
      SELECT "rows" FROM "RequestLogTally" WHERE "accountId" = ${accountId}::uuid`;
    return row?.rows;
  }
});
