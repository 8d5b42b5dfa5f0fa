/**
 * The request log of consumer accounts (docs/contract.md section 7): every /v1 request made with a key of an
 * account is logged with its method, path, status, error code, latency, key prefix and the account's windows after
 * it, written by the analytics flush; requests of keys outside accounts are not. Entries are found by filter and
 * by the `X-Request-Id` the client holds, paged newest first, and purged after 7 days and beyond 100,000 per account.
 */
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
  });
});
