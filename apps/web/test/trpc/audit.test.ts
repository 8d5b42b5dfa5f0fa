import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../../src/server/trpc/router";
import { type Caller, categoryId, expectTrpcError, type Harness, openHarness } from "./support";

describe("audit procedures (admin)", () => {
  let h: Harness;
  let admin: Caller;
  let staff: Caller;
  let petId: number;
  beforeAll(async () => {
    h = await openHarness();
    admin = (await h.signedIn("admin@example.com")).caller;
    staff = (await h.signedIn("staff@example.com")).caller;
    const dogs = await categoryId(h.rt, "dogs");
    petId = (await staff.pets.create({ name: "Audited", categoryId: dogs })).id;
    await staff.pets.update({ id: petId, name: "Audited twice" });
    await admin.apiKeys.create({ name: "Audited key", plan: "free" });
  });
  afterAll(() => h?.close());

  it("lists changes newest first with who, what, when, before and after", async () => {
    const { rows, total } = await admin.audit.list({});
    expect(total).toBeGreaterThanOrEqual(5);
    expect(rows[0]).toMatchObject({
      actor: "user:admin@example.com",
      action: "apiKey.create",
      entityType: "apiKey",
    });
    const update = rows.find((r) => r.action === "pet.update");
    expect(update).toMatchObject({
      actor: "user:staff@example.com",
      entityType: "pet",
      entityId: String(petId),
    });
    expect(update?.before).toMatchObject({ name: "Audited" });
    expect(update?.after).toMatchObject({ name: "Audited twice" });
    expect(new Date(update?.at ?? "").getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.stringify(rows)).not.toMatch(/"hash"|passwordHash/);
  });

  it("filters by actor and by entity, with paging", async () => {
    const byStaff = await admin.audit.list({ actor: "user:staff@example.com" });
    // Signing in is on the record too.
    expect(byStaff.rows.map((r) => r.action)).toEqual(["pet.update", "pet.create", "session.signIn"]);
    const byEntity = await admin.audit.list({ entityType: "pet", entityId: String(petId) });
    expect(byEntity.total).toBe(2);
    const page2 = await admin.audit.list({ pageSize: 1, page: 2 });
    expect(page2.rows).toHaveLength(1);
    expect(await admin.audit.actors()).toEqual(
      expect.arrayContaining(["test", "user:admin@example.com", "user:staff@example.com"]),
    );
    await expectTrpcError(admin.audit.list({ entityType: "planet" as never }), "BAD_REQUEST");
  });

  it("offers no way to change or delete entries", () => {
    const procedures = Object.keys(appRouter._def.procedures).filter((p) => p.startsWith("audit."));
    expect(procedures.sort()).toEqual(["audit.actors", "audit.export", "audit.list"]);
  });

  it("shows the entity's name beside its id, and the recorded name once it is deleted", async () => {
    const { rows } = await admin.audit.list({ entityType: "pet", entityId: String(petId) });
    expect(rows.map((r) => r.entityName)).toEqual(["Audited twice", "Audited twice"]);
    const key = (await admin.audit.list({ entityType: "apiKey" })).rows[0];
    expect(key?.entityName).toMatch(/^Audited key \(pet_test_.{3}…\)$/);
    const users = await admin.audit.list({ entityType: "user", actor: "test" });
    expect(users.rows.map((r) => r.entityName).sort()).toEqual([
      "Ada Admin <admin@example.com>",
      "Sam Staff <staff@example.com>",
    ]);
    const gone = await staff.pets.create({ name: "Short stay", categoryId: await categoryId(h.rt, "cats") });
    await staff.pets.remove({ id: gone.id });
    const removed = await admin.audit.list({ entityType: "pet", entityId: String(gone.id) });
    expect(removed.rows.map((r) => [r.action, r.entityName])).toEqual([
      ["pet.delete", "Short stay"],
      ["pet.create", "Short stay"],
    ]);
  });

  it("filters by a time range [from, to)", async () => {
    const all = await admin.audit.list({ pageSize: 100 });
    const newest = all.rows[0];
    const oldest = all.rows.at(-1);
    if (!newest || !oldest) throw new Error("no entries");
    const inRange = await admin.audit.list({ from: oldest.at, to: newest.at, pageSize: 100 });
    expect(inRange.rows.every((r) => r.at >= oldest.at && r.at < newest.at)).toBe(true);
    expect(inRange.rows.some((r) => r.id === newest.id)).toBe(false);
    expect(
      (await admin.audit.list({ from: "2000-01-01T00:00:00.000Z", to: "2000-01-02T00:00:00.000Z" })).total,
    ).toBe(0);
    const backwards = await expectTrpcError(
      admin.audit.list({ from: "2030-01-02T00:00:00.000Z", to: "2030-01-01T00:00:00.000Z" }),
      "BAD_REQUEST",
    );
    expect(backwards.message).toMatch(/to/);
    await expectTrpcError(admin.audit.list({ from: "yesterday" }), "BAD_REQUEST");
  });

  it("exports the filtered log as CSV that quotes correctly and defuses formulas", async () => {
    const dogs = await categoryId(h.rt, "dogs");
    const evil = await staff.pets.create({ name: '=HYPERLINK("http://x","a, "b"")', categoryId: dogs });
    const exported = await admin.audit.export({ entityType: "pet", entityId: String(evil.id) });
    expect(exported).toMatchObject({ rows: 1, total: 1 });
    expect(exported.filename).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.csv$/);
    const parsed = Papa.parse<string[]>(exported.csv.trim());
    expect(parsed.errors).toEqual([]);
    expect(parsed.data[0]).toEqual([
      "id",
      "time (UTC)",
      "actor",
      "action",
      "entity type",
      "entity id",
      "entity name",
      "before",
      "after",
    ]);
    const row = parsed.data[1] ?? [];
    expect(row.slice(2, 6)).toEqual(["user:staff@example.com", "pet.create", "pet", String(evil.id)]);
    // The name is kept whole, but a spreadsheet reads it as text, not as a formula.
    expect(row[6]).toBe(`'=HYPERLINK("http://x","a, "b"")`);
    expect(JSON.parse(row[8] ?? "")).toMatchObject({ name: '=HYPERLINK("http://x","a, "b"")' });
    expect(exported.csv.split("\r\n")[0]).toBe(
      '"id","time (UTC)","actor","action","entity type","entity id","entity name","before","after"',
    );
    // Without filters: everything, newest first.
    const everything = await admin.audit.export({});
    expect(everything.total).toBe((await admin.audit.list({})).total);
    await expectTrpcError(staff.audit.export({}), "FORBIDDEN");
  });
});
