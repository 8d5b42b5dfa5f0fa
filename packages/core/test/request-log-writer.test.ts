/**
 * The request log's writer (usage/request-log.ts `requestLogWriter`) on PostgreSQL and on the embedded PGlite:
 * a flush stores every entry as it was pushed, field for field, including nulls and paths with quotes,
 * backslashes, commas, braces and letters beyond ASCII (the characters an array or JSON encoding must escape).
 */
import { loadConfig } from "@petstore/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { databaseOf } from "../src/testing/index.ts";
import { RequestLogBatch, type RequestLogEntry, requestLogWriter } from "../src/usage/request-log.ts";
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
  },
];

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
    const batch = new RequestLogBatch();
    for (const e of entries) batch.push(e.apiKeyId, e, e.refusedBy, e);
    const db = databaseOf(rt);
    await requestLogWriter((query) => db.queryRows(query))(batch.take());
    const stored = await db.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT "accountId"::text, "apiKeyId"::text, "keyPrefix", "at", "method", "path", "operation", "status",
        "errorCode", "durationMs", "requestId", "minuteRemaining", "dayRemaining", "refusedBy"
      FROM "RequestLogEntry" ORDER BY "at"`;
    expect(stored.map((row) => ({ ...row, at: (row.at as Date).getTime() }))).toEqual(entries);
  });
});
