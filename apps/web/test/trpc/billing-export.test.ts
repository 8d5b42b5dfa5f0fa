/**
 * Usage for billing (docs/contract.md section 7, "Usage for billing"): per account and UTC month, requests by
 * operation and outcome; the export equals the sum of the account's usage rows in the month, a request counts in
 * the month of its hour, a complete month is final, and the CSV download is the account's own for a member and any
 * account's (or every account's) for an admin.
 */
import { databaseOf } from "@petstore/core/testing";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../../src/server/trpc/cookies";
import { USAGE_CSV, usageExportResponse } from "../../src/server/usage-export";
import { countRequests, createTestAccount, type Harness, openHarness } from "./support";

const NOW = new Date("2026-03-10T12:30:00.000Z");
const FEB_FIRST = Date.parse("2026-02-01T00:00:00.000Z");
const MAR_FIRST = Date.parse("2026-03-01T00:00:00.000Z");

describe("usage for billing", () => {
  let h: Harness;
  let adminToken: string;
  let staffToken: string;
  let ownerToken: string;
  const acct: Record<"a" | "b", string> = { a: "", b: "" };

  /** GET /api/usage/export with `query`, signed in with `token` (none: no cookie). */
  const download = (token: string | undefined, query: Record<string, string>) =>
    usageExportResponse(
      h.rt,
      new Request(`http://dashboard.test/api/usage/export?${new URLSearchParams(query)}`, {
        headers: token ? { cookie: `${SESSION_COOKIE}=${token}` } : {},
      }),
    );
  const csvRows = async (response: Response) =>
    Papa.parse<string[]>((await response.text()).trimEnd(), { skipEmptyLines: true }).data;

  beforeAll(async () => {
    h = await openHarness();
    h.setNow(NOW);
    ({ token: adminToken } = await h.signedIn("admin@example.com"));
    ({ token: staffToken } = await h.signedIn("staff@example.com"));
    const a = await createTestAccount(h.rt, "Aardvark Feeds", "pro");
    const b = await createTestAccount(h.rt, "Badger Supplies", "free");
    acct.a = a.id;
    acct.b = b.id;
    ({ token: ownerToken } = await h.signedIn(a.ownerEmail));
    const [a1, a2] = await Promise.all(
      [1, 2].map((i) => h.rt.apiKeys.createInAccount(a.id, { name: `till ${i}` }, "test")),
    );
    const b1 = await h.rt.apiKeys.createInAccount(b.id, { name: "till" }, "test");
    const outside = await h.rt.apiKeys.create({ name: "outside", plan: "pro" }, "test");
    const at = (ms: number) => new Date(ms);
    countRequests(h.rt, a1?.id as string, at(FEB_FIRST), 10, "2xx", "listPets");
    // The last instant of February counts in February; the first of March in March.
    countRequests(h.rt, a1?.id as string, at(MAR_FIRST - 1), 3, "4xx", "getPet");
    countRequests(h.rt, a2?.id as string, at(FEB_FIRST + 86_400_000 * 10), 5, "rate_limited", "listPets");
    countRequests(h.rt, a2?.id as string, at(FEB_FIRST + 86_400_000 * 10), 2, "key_banned", "listPets");
    countRequests(h.rt, a2?.id as string, at(FEB_FIRST + 86_400_000 * 11), 6, "2xx", "listPets");
    countRequests(h.rt, a1?.id as string, at(MAR_FIRST), 4, "2xx", "createPet");
    countRequests(h.rt, b1.id, at(FEB_FIRST + 3_600_000), 7, "2xx", "createOrder");
    countRequests(h.rt, outside.id, at(FEB_FIRST + 3_600_000), 100, "2xx", "listPets");
    await h.rt.analytics?.flush();
  });
  afterAll(() => {
    h?.setNow(undefined);
    return h?.close();
  });

  it("sums an account's requests in the month by operation and outcome, equal to its usage rows", async () => {
    const feb = await h.rt.forAccount(acct.a).billing("2026-02");
    expect(feb).toMatchObject({
      month: "2026-02",
      from: "2026-02-01T00:00:00.000Z",
      to: "2026-03-01T00:00:00.000Z",
      final: true,
    });
    expect(feb.rows.map((r) => [r.operation, r.outcome, r.requests])).toEqual([
      ["listPets", "2xx", 16],
      ["listPets", "rate_limited", 5],
      ["listPets", "key_banned", 2],
      ["getPet", "4xx", 3],
    ]);
    // The sum of the account's usage rows in the month, read apart.
    const [row] = await databaseOf(h.rt).prisma.$queryRaw<{ sum: number }[]>`
      SELECT coalesce(sum(h."requests"), 0)::int AS "sum" FROM "UsageHour" h JOIN "ApiKey" k ON k."id" = h."apiKeyId"
      WHERE k."accountId" = ${acct.a}::uuid AND h."hour" >= ${new Date(FEB_FIRST)} AND h."hour" < ${new Date(MAR_FIRST)}`;
    const sum = row?.sum;
    expect(feb.rows.reduce((n, r) => n + r.requests, 0)).toBe(sum);
    expect(sum).toBe(26);

    const march = await h.rt.forAccount(acct.a).billing("2026-03");
    expect(march.final).toBe(false);
    expect(march.rows.map((r) => [r.operation, r.outcome, r.requests])).toEqual([["createPet", "2xx", 4]]);
  });

  it("lists every account (never keys outside accounts) without one, and keeps a final month as it was", async () => {
    const all = await h.rt.usage.billing("2026-02");
    expect(all.rows.map((r) => [r.accountName, r.requests])).toEqual([
      ["Aardvark Feeds", 16],
      ["Aardvark Feeds", 5],
      ["Aardvark Feeds", 2],
      ["Aardvark Feeds", 3],
      ["Badger Supplies", 7],
    ]);
    // Requests answered now count in March: February does not change.
    const [key] = await h.rt.apiKeys.listOfAccount(acct.a);
    countRequests(h.rt, key?.id as string, NOW, 9, "2xx", "listPets");
    await h.rt.analytics?.flush();
    expect(await h.rt.usage.billing("2026-02")).toEqual(all);
    await expect(h.rt.usage.billing("2026-04")).rejects.toMatchObject({ code: "validation_failed" });
  });

  it("downloads the CSV: a member's own account, an admin's any or all; refuses others", async () => {
    const own = await download(ownerToken, { month: "2026-02" });
    expect(own.status).toBe(200);
    expect(own.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(own.headers.get("content-disposition")).toBe('attachment; filename="usage-2026-02.csv"');
    const rows = await csvRows(own);
    expect(rows[0]).toEqual([...USAGE_CSV.columns]);
    const expected = (await h.rt.forAccount(acct.a).billing("2026-02")).rows.map((r) => [
      r.accountId,
      r.accountName,
      r.month,
      r.operation,
      r.outcome,
      String(r.requests),
    ]);
    expect(rows.slice(1)).toEqual(expected);

    expect((await download(ownerToken, { month: "2026-02", account: acct.b })).status).toBe(404);
    const forAdmin = await download(adminToken, { month: "2026-02", account: acct.a });
    expect((await csvRows(forAdmin)).slice(1)).toEqual(expected);
    expect((await csvRows(await download(adminToken, { month: "2026-02" }))).length).toBe(1 + 5);
    expect((await download(staffToken, { month: "2026-02" })).status).toBe(403);
    expect((await download(undefined, { month: "2026-02" })).status).toBe(401);
    const bad = await download(adminToken, { month: "2026-13" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "validation_failed" });
  });
});
