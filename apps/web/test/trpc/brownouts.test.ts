/**
 * Brownouts on the dashboard (docs/contract.md section 4, "Brownouts"): admins list, schedule and cancel getPet's
 * windows; a bad start is named in its field; each change is audited under the admin.
 */
import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { expectTrpcError, shapeOf, useHarness } from "./support";

describe("brownouts (dashboard)", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");

  it("schedules, lists and cancels a window, audited", async () => {
    const startsAt = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 3_600_000).toISOString();
    const scheduled = await admin.apiKeys.scheduleBrownout({ startsAt, durationMinutes: 15 });
    expect(scheduled).toMatchObject({
      operation: "getPet",
      state: "scheduled",
      createdBy: "user:admin@example.com",
    });
    expect((await admin.apiKeys.brownouts()).map((b) => b.id)).toEqual([scheduled.id]);
    await admin.apiKeys.cancelBrownout({ id: scheduled.id });
    expect(await admin.apiKeys.brownouts()).toEqual([]);
    const audit = await databaseOf(h.rt).prisma.auditLog.findMany({
      where: { entityType: "brownout", entityId: scheduled.id },
      orderBy: { id: "asc" },
    });
    expect(audit.map((a) => [a.action, a.actor])).toEqual([
      ["brownout.schedule", "user:admin@example.com"],
      ["brownout.cancel", "user:admin@example.com"],
    ]);
  });

  it("names a start in the past in its field", async () => {
    const error = await expectTrpcError(
      admin.apiKeys.scheduleBrownout({ startsAt: "2020-01-01T00:00:00Z", durationMinutes: 15 }),
      "BAD_REQUEST",
    );
    expect(shapeOf(error).data.details).toEqual([{ path: "startsAt", message: "must not be in the past" }]);
    await expectTrpcError(admin.apiKeys.cancelBrownout({ id: crypto.randomUUID() }), "NOT_FOUND");
  });
});
