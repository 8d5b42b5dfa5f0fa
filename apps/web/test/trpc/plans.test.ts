import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { expectTrpcError, shapeOf, useHarness } from "./support";

describe("plans procedures (admin)", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");

  it("lists the four plans in order with their limits and key caps", async () => {
    expect(await admin.plans.list()).toEqual([
      { name: "free", perMinute: 60, perDay: 1000, perMonth: null, maxKeys: 3 },
      { name: "pro", perMinute: 300, perDay: 10000, perMonth: null, maxKeys: 10 },
      { name: "business", perMinute: 1000, perDay: 100000, perMonth: null, maxKeys: 25 },
      { name: "enterprise", perMinute: null, perDay: null, perMonth: null, maxKeys: null },
    ]);
  });

  it("edits a plan's limits, which keys on that plan then get", async () => {
    const key = await admin.apiKeys.create({ name: "On pro", plan: "pro" });
    expect(await admin.plans.update({ plan: "pro", perMinute: 500, perDay: 20000 })).toEqual({
      name: "pro",
      perMinute: 500,
      perDay: 20000,
      perMonth: null,
      maxKeys: 10,
    });
    expect((await admin.plans.list())[1]).toEqual({
      name: "pro",
      perMinute: 500,
      perDay: 20000,
      perMonth: null,
      maxKeys: 10,
    });
    // A monthly quota is set beside them, and cleared with null; absent, it stays as it is.
    expect(
      await admin.plans.update({ plan: "pro", perMinute: 500, perDay: 20000, perMonth: 300_000 }),
    ).toMatchObject({ perMonth: 300_000 });
    expect(await admin.plans.update({ plan: "pro", perMinute: 500, perDay: 20000 })).toMatchObject({
      perMonth: 300_000,
    });
    expect(
      await admin.plans.update({ plan: "pro", perMinute: 500, perDay: 20000, perMonth: null }),
    ).toMatchObject({ perMonth: null });
    await expectTrpcError(
      admin.plans.update({ plan: "pro", perMinute: 500, perDay: 20000, perMonth: 0 }),
      "BAD_REQUEST",
    );
    expect((await admin.apiKeys.get({ id: key.id })).effectivePerMinute).toBe(500);
    const audit = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "plan.update", entityId: "pro" },
    });
    expect(audit).toMatchObject({
      actor: "user:admin@example.com",
      before: { perMinute: 300 },
      after: { perMinute: 500 },
    });
  });

  it("rejects enterprise, zero and inverted limits", async () => {
    await expectTrpcError(
      admin.plans.update({ plan: "enterprise" as never, perMinute: 1, perDay: 2 }),
      "BAD_REQUEST",
    );
    const zero = await expectTrpcError(
      admin.plans.update({ plan: "free", perMinute: 0, perDay: 10 }),
      "BAD_REQUEST",
    );
    expect(shapeOf(zero).data.details?.[0]?.path).toBe("perMinute");
    const inverted = await expectTrpcError(
      admin.plans.update({ plan: "free", perMinute: 100, perDay: 10 }),
      "BAD_REQUEST",
    );
    expect(shapeOf(inverted).data.details).toEqual([
      { path: "perMinute", message: "the per-minute limit cannot exceed the per-day limit" },
    ]);
  });

  it("counts the working keys a change of a plan's limits would affect", async () => {
    const before = (await admin.plans.affectedKeys({ plan: "business" })).keys;
    await admin.apiKeys.create({ name: "B1", plan: "business" });
    await admin.apiKeys.create({ name: "B2", plan: "business" });
    const revoked = await admin.apiKeys.create({ name: "B3", plan: "business" });
    await admin.apiKeys.revoke({ id: revoked.id });
    // Custom limits on both windows: the plan's limits do not apply to it.
    await h.rt.apiKeys.create({ name: "B4", plan: "business", perMinute: 5, perDay: 50 }, "test");
    expect(await admin.plans.affectedKeys({ plan: "business" })).toEqual({ keys: before + 2 });
    await expectTrpcError(admin.plans.affectedKeys({ plan: "enterprise" as never }), "BAD_REQUEST");
  });
});
