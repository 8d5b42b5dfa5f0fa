/** The admin's API key list: search by name or prefix, plan and state filters, paging, newest first. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, expectTrpcError, type Harness, openHarness } from "./support";

describe("apiKeys.list (search, filters, paging)", () => {
  let h: Harness;
  let admin: Caller;
  const ids: Record<string, string> = {};
  let prefixOfBeta = "";
  beforeAll(async () => {
    h = await openHarness();
    admin = (await h.signedIn("admin@example.com")).caller;
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
  afterAll(() => h?.close());

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
