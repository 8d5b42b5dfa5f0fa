/**
 * The request log of consumer accounts (docs/contract.md section 7): every /v1 request made with a key of an
 * account is logged with its method, path, status, error code, latency, key prefix and the account's windows after
 * it, written by the analytics flush; requests of keys outside accounts are not. Entries are found by filter and
 * by the `X-Request-Id` the client holds, paged newest first, and purged after 7 days and beyond 100,000 per account.
 * One account's flood never costs another account an entry (its refusals beyond a budget are counted in aggregate
 * rows); secrets in the target are stored redacted; a 503 of an outage is logged and counted for a key this instance
 * read before.
 */

import { generateApiKey, REQUEST_LOG_ACCOUNT_REFUSALS } from "@petstore/core";
import { databaseOf } from "@petstore/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { useServer } from "./support.ts";

describe("request log (postgres)", () => {
  const t = useServer("postgres");
  let accountId = "";
  const keys = { a: { id: "", key: "", prefix: "" }, b: { id: "", key: "", prefix: "" } };

  beforeAll(async () => {
    const account = await t.s.rt.accounts.create(
      { name: "Logged Shop", plan: "pro", ownerEmail: "owner@logged.example" },
      "test",
    );
    accountId = account.id;
    keys.a = await t.s.rt.apiKeys.createInAccount(accountId, { name: "front" }, "test");
    keys.b = await t.s.rt.apiKeys.createInAccount(accountId, { name: "back" }, "test");
  });

  const send = (key: string | undefined, path: string, requestId: string, init: RequestInit = {}) =>
    t.call(null, path, {
      ...init,
      headers: { ...t.auth(key), "x-request-id": requestId, "content-type": "application/json" },
    });

  it("logs each request of the account's keys with what a developer needs, and none of other keys", async () => {
    await send(keys.a.key, "/v1/pets?limit=2", "log-list");
    await send(keys.a.key, "/v1/pets", "log-create-bad", { method: "POST", body: "{}" });
    await send(keys.b.key, "/v1/pets/999999999", "log-get-missing");
    await send(undefined, "/v1/pets?limit=1", "log-outside");
    await t.s.rt.analytics?.flush();
    const { entries } = await t.s.rt.requestLog.search(accountId, { limit: 50 });
    expect(entries.map((e) => e.requestId)).toEqual(["log-get-missing", "log-create-bad", "log-list"]);
    expect(entries[2]).toMatchObject({
      method: "GET",
      path: "/v1/pets?limit=2",
      operation: "listPets",
      status: 200,
      errorCode: null,
      keyPrefix: keys.a.prefix,
      apiKeyId: keys.a.id,
      minuteRemaining: 299,
      dayRemaining: 9_999,
      refusedBy: null,
    });
    expect(entries[1]).toMatchObject({ method: "POST", status: 400, errorCode: "validation_failed" });
    expect(entries[0]).toMatchObject({
      operation: "getPet",
      status: 404,
      errorCode: "not_found",
      minuteRemaining: 297,
    });
    expect(entries[0]?.durationMs).toBeGreaterThan(0);
  });

  it("finds entries by request id, key, status class and operation, and pages newest first", async () => {
    const search = (q: Parameters<typeof t.s.rt.requestLog.search>[1]) =>
      t.s.rt.requestLog.search(accountId, q).then((p) => p.entries.map((e) => e.requestId));
    expect(await search({ requestId: "log-create-bad", limit: 50 })).toEqual(["log-create-bad"]);
    expect(await search({ apiKeyId: keys.b.id, limit: 50 })).toEqual(["log-get-missing"]);
    expect(await search({ status: "4xx", limit: 50 })).toEqual(["log-get-missing", "log-create-bad"]);
    expect(await search({ status: 200, operation: "listPets", limit: 50 })).toEqual(["log-list"]);
    const first = await t.s.rt.requestLog.search(accountId, { limit: 2 });
    const second = await t.s.rt.requestLog.search(accountId, { limit: 2, cursor: first.nextCursor ?? "" });
    expect([...first.entries, ...second.entries].map((e) => e.requestId)).toEqual([
      "log-get-missing",
      "log-create-bad",
      "log-list",
    ]);
    expect(second.nextCursor).toBeNull();
  });

  it("purges entries older than 7 days and each account's entries beyond the newest 100,000", async () => {
    const prisma = databaseOf(t.s.rt).prisma;
    const { id: other } = await t.s.rt.accounts.create(
      { name: "Busy Shop", plan: "pro", ownerEmail: "owner@busy.example" },
      "test",
    );
    await prisma.$executeRaw`
      INSERT INTO "RequestLogEntry" ("accountId", "apiKeyId", "keyPrefix", "at", "method", "path", "operation",
        "status", "durationMs", "requestId")
      SELECT ${other}::uuid, ${keys.a.id}::uuid, 'pet_test_xx', now() - (g || ' milliseconds')::interval, 'GET',
        '/v1/pets', 'listPets', 200, 1, 'bulk-' || g
      FROM generate_series(1, 100005) g`;
    await prisma.$executeRaw`
      INSERT INTO "RequestLogEntry" ("accountId", "apiKeyId", "keyPrefix", "at", "method", "path", "operation",
        "status", "durationMs", "requestId")
      VALUES (${accountId}::uuid, ${keys.a.id}::uuid, 'pet_test_xx', now() - interval '8 days', 'GET', '/v1/pets',
        'listPets', 200, 1, 'too-old')`;
    const report = await t.s.rt.housekeeping.run();
    expect(report).toMatchObject({ skipped: false, deleted: { requestLog: 6 } });
    expect(await prisma.requestLogEntry.count({ where: { accountId: other } })).toBe(100_000);
    expect(await prisma.requestLogEntry.count({ where: { accountId: other, requestId: "bulk-1" } })).toBe(1);
    expect(
      await prisma.requestLogEntry.count({ where: { accountId: other, requestId: "bulk-100001" } }),
    ).toBe(0);
    expect((await t.s.rt.requestLog.search(accountId, { limit: 50 })).entries).toHaveLength(3);
    // The tallies the flushes keep are each account's rows again, whatever was inserted beside them.
    const tallies = await prisma.$queryRaw<{ accountId: string; rows: number }[]>`
      SELECT "accountId"::text AS "accountId", "rows" FROM "RequestLogTally"
      WHERE "accountId" IN (${accountId}::uuid, ${other}::uuid) ORDER BY "rows"`;
    expect(tallies).toEqual([
      { accountId, rows: 3 },
      { accountId: other, rows: 100_000 },
    ]);
  });

  it("keeps every request of account B while account A floods past its budget, and counts A's refusals", async () => {
    const { id: flooder } = await t.s.rt.accounts.create(
      { name: "Flooding Shop", plan: "free", ownerEmail: "owner@flood.example" },
      "test",
    );
    const a = await t.s.rt.apiKeys.createInAccount(flooder, { name: "flood" }, "test");
    const { id: quiet } = await t.s.rt.accounts.create(
      { name: "Quiet Shop", plan: "pro", ownerEmail: "owner@quiet.example" },
      "test",
    );
    const b = await t.s.rt.apiKeys.createInAccount(quiet, { name: "quiet" }, "test");
    const flood = 1_500;
    const statuses = new Map<number, number>();
    for (let i = 0; i < flood; i++) {
      const r = await t.s.fetch("/v1/categories", {
        headers: { ...t.auth(a.key), "x-request-id": `a-${i}` },
      });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (i % 75 === 0) expect((await send(b.key, "/v1/categories", `b-${i / 75}`)).status).toBe(200);
    }
    expect(statuses.get(429)).toBeGreaterThan(REQUEST_LOG_ACCOUNT_REFUSALS * 10);
    await t.s.rt.analytics?.flush();
    const all = async (account: string) => {
      const rows = [];
      let cursor: string | undefined;
      do {
        const page = await t.s.rt.requestLog.search(account, { limit: 500, ...(cursor ? { cursor } : {}) });
        rows.push(...page.entries);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return rows;
    };
    const quietRows = await all(quiet);
    expect(quietRows.map((e) => e.requestId).sort()).toEqual(
      Array.from({ length: flood / 75 }, (_, i) => `b-${i}`).sort(),
    );
    const flooded = await all(flooder);
    expect(flooded.reduce((sum, e) => sum + e.requests, 0)).toBe(flood);
    const aggregates = flooded.filter((e) => e.firstAt !== null);
    expect(aggregates.length).toBeGreaterThan(0);
    for (const e of aggregates) {
      expect(e).toMatchObject({ status: 429, method: "", path: "", requestId: "" });
      expect(e.refusedBy).not.toBeNull();
      expect(Date.parse(e.firstAt ?? "")).toBeLessThanOrEqual(Date.parse(e.at));
    }
    const oneByOne = flooded.filter((e) => e.firstAt === null);
    expect(oneByOne.filter((e) => e.status === 429)).toHaveLength(REQUEST_LOG_ACCOUNT_REFUSALS);
  });

  it("stores secret query values and key-shaped values redacted", async () => {
    await send(
      keys.a.key,
      `/v1/pets?api_key=${keys.b.key}&access_token=${keys.a.key}&token=s3cr3t&limit=1`,
      "log-secrets",
    );
    await send(keys.a.key, `/v1/pets/${keys.b.key}?Password=hunter2&SIG=abc`, "log-path-key");
    await t.s.rt.analytics?.flush();
    const path = async (requestId: string) =>
      (await t.s.rt.requestLog.search(accountId, { requestId, limit: 1 })).entries[0]?.path;
    expect(await path("log-secrets")).toBe(
      "/v1/pets?api_key=[redacted]&access_token=[redacted]&token=[redacted]&limit=1",
    );
    expect(await path("log-path-key")).toBe("/v1/pets/[redacted]?Password=[redacted]&SIG=[redacted]");
  });

  it("logs and counts an outage's 503 for a key this instance read before, and not for one it never read", async () => {
    const prisma = databaseOf(t.s.rt).prisma;
    const known = await t.s.rt.apiKeys.createInAccount(accountId, { name: "known" }, "test");
    expect((await send(known.key, "/v1/categories", "before-outage")).status).toBe(200);
    const never = generateApiKey("staging");
    // Past the key cache's 4 s, so the key must be read again, while the database refuses connections.
    t.s.setNow(new Date(Date.now() + 60_000));
    const db = databaseOf(t.s.rt);
    const queryRows = db.queryRows;
    db.queryRows = async () => {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    };
    try {
      for (let i = 0; i < 3; i++)
        expect((await send(known.key, "/v1/categories", `outage-${i}`)).status).toBe(503);
      expect((await send(never, "/v1/categories", "outage-unknown")).status).toBe(503);
    } finally {
      db.queryRows = queryRows;
    }
    await t.s.rt.analytics?.flush();
    const { entries } = await t.s.rt.requestLog.search(accountId, {
      apiKeyId: known.id,
      status: 503,
      limit: 50,
    });
    expect(entries.map((e) => e.requestId)).toEqual(["outage-2", "outage-1", "outage-0"]);
    expect(entries[0]).toMatchObject({ errorCode: "service_unavailable", operation: "listCategories" });
    expect(await prisma.requestLogEntry.count({ where: { requestId: "outage-unknown" } })).toBe(0);
    const usage = await prisma.usageHour.aggregate({
      where: { apiKeyId: known.id, outcome: "5xx" },
      _sum: { requests: true },
    });
    expect(usage._sum.requests).toBe(3);
  });
});
