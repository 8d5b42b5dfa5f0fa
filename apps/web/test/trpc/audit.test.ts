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
    expect(byStaff.rows.map((r) => r.action)).toEqual(["pet.update", "pet.create"]);
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
    expect(procedures.sort()).toEqual(["audit.actors", "audit.list"]);
  });
});
