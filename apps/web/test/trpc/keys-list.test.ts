/**
 * The admin's API key list: search by name or prefix (exact and prefix matches first), plan and state filters,
 * paging, newest first, by last use and by getPet calls of the last 30 days.
 */
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  countRequests,
  expectTrpcError,
  type Harness,
  openHarness,
  useHarness,
} from "./support";

describe("apiKeys.list (search, filters, paging)", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");
  const ids: Record<string, string> = {};
  let prefixOfBeta = "";
  beforeAll(async () => {
    for (const [name, plan] of [
      ["Alpha shop", "free"],
      ["Beta shop", "pro"],
      ["Gamma partner", "pro"],
      ["Delta partner", "business"],
      ["Epsilon", "free"],
    ] as const) {
      const key = await admin.apiKeys.create({ name, plan });
      ids[name] = key.id;
      if (name === "Beta shop") prefixOfBeta = key.prefix;
    }
    await admin.apiKeys.create({ name: "Soon gone", plan: "free", expiresInSeconds: 3 * 86400 });
    await admin.apiKeys.revoke({ id: String(ids.Epsilon) });
    await h.rt.apiKeys.recordBan(String(ids["Delta partner"]), new Date(Date.now() + 600_000));
  });

  const names = (page: { rows: { name: string }[] }) => page.rows.map((r) => r.name);

  it("lists every key newest first with the total", async () => {
    const page = await admin.apiKeys.list({});
    expect(page.total).toBe(6);
    expect(names(page)).toEqual([
      "Soon gone",
      "Epsilon",
      "Delta partner",
      "Gamma partner",
      "Beta shop",
      "Alpha shop",
    ]);
  });

  it("searches names in any letter case and prefixes from their start", async () => {
    expect(names(await admin.apiKeys.list({ query: "PARTNER" }))).toEqual(["Delta partner", "Gamma partner"]);
    expect(names(await admin.apiKeys.list({ query: prefixOfBeta }))).toEqual(["Beta shop"]);
    expect(names(await admin.apiKeys.list({ query: `${prefixOfBeta}…` }))).toEqual(["Beta shop"]);
    expect((await admin.apiKeys.list({ query: "nothing like it" })).total).toBe(0);
  });

  it("filters by plan and by state", async () => {
    expect(names(await admin.apiKeys.list({ plan: "pro" }))).toEqual(["Gamma partner", "Beta shop"]);
    expect(names(await admin.apiKeys.list({ state: "revoked" }))).toEqual(["Epsilon"]);
    expect(names(await admin.apiKeys.list({ state: "banned" }))).toEqual(["Delta partner"]);
    expect(names(await admin.apiKeys.list({ state: "expiring" }))).toEqual(["Soon gone"]);
    expect(names(await admin.apiKeys.list({ state: "active" }))).toEqual([
      "Gamma partner",
      "Beta shop",
      "Alpha shop",
    ]);
    expect((await admin.apiKeys.list({ state: "working" })).total).toBe(5);
    expect(names(await admin.apiKeys.list({ state: "working", plan: "free", query: "shop" }))).toEqual([
      "Alpha shop",
    ]);
    // Every state a row shows is the state it was filtered by.
    for (const state of ["active", "expiring", "banned", "revoked"] as const) {
      const page = await admin.apiKeys.list({ state });
      expect(page.rows.every((r) => r.state === state)).toBe(true);
    }
  });

  it("pages", async () => {
    const first = await admin.apiKeys.list({ pageSize: 4, page: 1 });
    const second = await admin.apiKeys.list({ pageSize: 4, page: 2 });
    expect(first.total).toBe(6);
    expect(first.rows).toHaveLength(4);
    expect(names(second)).toEqual(["Beta shop", "Alpha shop"]);
    expect((await admin.apiKeys.list({ pageSize: 4, page: 3 })).rows).toEqual([]);
    await expectTrpcError(admin.apiKeys.list({ pageSize: 500 }), "BAD_REQUEST");
    await expectTrpcError(admin.apiKeys.list({ state: "asleep" as never }), "BAD_REQUEST");
  });
});

describe("apiKeys.list (ranking and sorts)", () => {
  let h: Harness;
  let admin: Caller;
  const id: Record<string, string> = {};
  const NOW = new Date("2026-03-10T12:30:00.000Z");
  beforeAll(async () => {
    h = await openHarness();
    admin = (await h.signedIn("admin@example.com")).caller;
    // Created oldest first, one minute apart: newest first alone would put the exact match last.
    const names = [
      "Scale client 42",
      "Scale client 420",
      "Old scale client 42",
      "scale client 4200",
      "Other",
    ];
    for (const [i, name] of names.entries()) {
      h.setNow(new Date(NOW.getTime() - (names.length - i) * 60_000));
      id[name] = (await admin.apiKeys.create({ name, plan: "free" })).id;
    }
    h.setNow(NOW);
    const prisma = databaseOf(h.rt).prisma;
    await prisma.apiKey.update({
      where: { id: id.Other },
      data: { lastUsedAt: new Date(NOW.getTime() - 1_000) },
    });
    await prisma.apiKey.update({
      where: { id: id["Scale client 420"] },
      data: { lastUsedAt: new Date(NOW.getTime() - 60_000) },
    });
    const at = (daysAgo: number) => new Date(NOW.getTime() - daysAgo * 86_400_000);
    countRequests(h.rt, String(id["Old scale client 42"]), at(3), 9, "2xx", "getPet");
    countRequests(h.rt, String(id["Scale client 42"]), at(29), 4, "4xx", "getPet");
    countRequests(h.rt, String(id["Scale client 42"]), at(31), 50, "2xx", "getPet");
    countRequests(h.rt, String(id.Other), at(1), 30, "2xx", "listPets");
    countRequests(h.rt, String(id.Other), at(1), 30, "rate_limited", "getPet");
    countRequests(h.rt, String(id["Scale client 420"]), NOW, 5, "2xx", "listPets");
    countRequests(h.rt, String(id["Scale client 42"]), NOW, 2, "4xx", "createPet");
    countRequests(h.rt, String(id["Scale client 420"]), at(2), 6, "key_banned", "listPets");
    countRequests(h.rt, String(id["Old scale client 42"]), at(8), 40, "rate_limited", "getPet");
    await h.rt.analytics?.flush();
    // Bans as the limiter records them (audit entries): two in the last 30 days, one, and one too old to count.
    const ban = (name: string, daysAgo: number) =>
      prisma.auditLog.create({
        data: {
          at: at(daysAgo),
          actor: "system",
          action: "apiKey.ban",
          entityType: "apiKey",
          entityId: String(id[name]),
          after: { level: 1, durationSeconds: 900 },
        },
      });
    await ban("Scale client 420", 2);
    await ban("Scale client 420", 29);
    await ban("Other", 10);
    await ban("Old scale client 42", 31);
  });
  afterAll(() => {
    h?.setNow(undefined);
    return h?.close();
  });

  const names = (page: { rows: { name: string }[] }) => page.rows.map((r) => r.name);

  it("ranks an exact name first, then matches at the start of the name, then the rest (newest first within)", async () => {
    expect(names(await admin.apiKeys.list({ query: "scale client 42" }))).toEqual([
      "Scale client 42",
      "scale client 4200",
      "Scale client 420",
      "Old scale client 42",
    ]);
    // Neither exact nor at the start of a name: newest first, paged.
    const first = await admin.apiKeys.list({ query: "client 42", pageSize: 2 });
    expect(first.total).toBe(4);
    expect(names(first)).toEqual(["scale client 4200", "Old scale client 42"]);
    expect(names(await admin.apiKeys.list({ query: "Scale client 42", pageSize: 1 }))).toEqual([
      "Scale client 42",
    ]);
  });

  it("ranks a key found by its prefix before keys whose names merely contain the text", async () => {
    const other = await admin.apiKeys.get({ id: String(id.Other) });
    const page = await admin.apiKeys.list({ query: other.prefix });
    expect(names(page)[0]).toBe("Other");
  });

  it("sorts by last use, most recent first and never used last", async () => {
    const page = await admin.apiKeys.list({ sort: "lastUsed" });
    expect(names(page).slice(0, 2)).toEqual(["Other", "Scale client 420"]);
    expect(page.rows.slice(2).every((r) => r.lastUsedAt === null)).toBe(true);
  });

  it("sorts by getPet calls of the last 30 days, and shows them on every row", async () => {
    const page = await admin.apiKeys.list({ sort: "getPetCalls" });
    expect(page.rows.slice(0, 2).map((r) => [r.name, r.getPetCalls30d])).toEqual([
      ["Old scale client 42", 9],
      ["Scale client 42", 4],
    ]);
    expect(page.rows.slice(2).every((r) => r.getPetCalls30d === 0)).toBe(true);
    const filtered = await admin.apiKeys.list({ sort: "getPetCalls", query: "scale", pageSize: 1, page: 2 });
    expect([filtered.total, names(filtered)]).toEqual([4, ["Scale client 42"]]);
    await expectTrpcError(admin.apiKeys.list({ sort: "name" as never }), "BAD_REQUEST");
  });

  it("sorts by requests today, and by 429s of the last 7 days, which every row shows", async () => {
    const today = await admin.apiKeys.list({ sort: "requestsToday" });
    expect(today.rows.slice(0, 2).map((r) => [r.name, r.requestsToday])).toEqual([
      ["Scale client 420", 5],
      ["Scale client 42", 2],
    ]);
    expect(today.rows.slice(2).every((r) => r.requestsToday === 0)).toBe(true);
    // A ban's refusals count; the 40 refusals of eight days ago do not.
    const refused = await admin.apiKeys.list({ sort: "rateLimited7d" });
    expect(refused.rows.slice(0, 2).map((r) => [r.name, r.rateLimited7d])).toEqual([
      ["Other", 30],
      ["Scale client 420", 6],
    ]);
    expect(refused.rows.slice(2).every((r) => r.rateLimited7d === 0)).toBe(true);
    const page2 = await admin.apiKeys.list({ sort: "rateLimited7d", pageSize: 1, page: 2 });
    expect([page2.total, names(page2)]).toEqual([5, ["Scale client 420"]]);
  });

  it("sorts by requests of the last 7 and 30 days (those that reached the API), which every row shows", async () => {
    const week = await admin.apiKeys.list({ sort: "requests7d" });
    expect(week.rows.map((r) => [r.name, r.requests7d])).toEqual([
      ["Other", 30],
      ["Old scale client 42", 9],
      ["Scale client 420", 5],
      ["Scale client 42", 2],
      ["scale client 4200", 0],
    ]);
    // 30 days take the 4 getPet calls of 29 days ago, not the 50 of 31 days ago; 429s never count.
    const month = await admin.apiKeys.list({ sort: "requests30d", pageSize: 4 });
    expect(month.rows.map((r) => [r.name, r.requests30d])).toEqual([
      ["Other", 30],
      ["Old scale client 42", 9],
      ["Scale client 42", 6],
      ["Scale client 420", 5],
    ]);
  });

  it("filters by activity: used or not lately, refused in 7 days, banned in 30 (older ones left out)", async () => {
    const of = async (activity: "used7d" | "unused30d" | "refused7d" | "banned30d", query?: string) =>
      names(await admin.apiKeys.list({ activity, ...(query ? { query } : {}) }));
    expect(await of("used7d")).toEqual(["Other", "Scale client 420"]);
    expect(await of("unused30d")).toEqual(["scale client 4200", "Old scale client 42", "Scale client 42"]);
    // Old scale client 42 was refused 8 days ago and banned 31 days ago: outside both windows.
    expect(await of("refused7d")).toEqual(["Other", "Scale client 420"]);
    expect(await of("banned30d", "scale")).toEqual(["Scale client 420"]);
    expect(await of("refused7d", "scale")).toEqual(["Scale client 420"]);
    await expectTrpcError(admin.apiKeys.list({ activity: "busy" as never }), "BAD_REQUEST");
  });

  it("sorts by bans of the last 30 days, which every row shows", async () => {
    const banned = await admin.apiKeys.list({ sort: "bans30d" });
    expect(banned.rows.slice(0, 2).map((r) => [r.name, r.bans30d])).toEqual([
      ["Scale client 420", 2],
      ["Other", 1],
    ]);
    expect(banned.rows.slice(2).every((r) => r.bans30d === 0)).toBe(true);
    const filtered = await admin.apiKeys.list({ sort: "bans30d", query: "other" });
    expect(filtered.rows.map((r) => [r.name, r.bans30d])).toEqual([["Other", 1]]);
  });
});
