import { utcDay } from "@petstore/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, type Harness, openHarness } from "./support";

describe("overview procedures", () => {
  let h: Harness;
  let admin: Caller;
  let staff: Caller;
  beforeAll(async () => {
    h = await openHarness();
    admin = (await h.signedIn("admin@example.com")).caller;
    staff = (await h.signedIn("staff@example.com")).caller;
  });
  afterAll(() => h?.close());

  it("counts animals by status for staff", async () => {
    expect(await staff.overview.animals()).toEqual([
      { status: "available", count: 18 },
      { status: "pending", count: 6 },
      { status: "sold", count: 6 },
      { status: "none", count: 6 },
    ]);
  });

  it("shows working keys by plan, requests in the last 24 h and the top keys", async () => {
    const now = new Date("2032-06-10T06:00:00Z"); // a quarter of today has passed
    h.setNow(now);
    const free = await admin.apiKeys.create({ name: "Free one", plan: "free" });
    const pro = await admin.apiKeys.create({ name: "Pro one", plan: "pro" });
    const revoked = await admin.apiKeys.create({ name: "Revoked", plan: "pro" });
    await admin.apiKeys.revoke({ id: revoked.id });
    const today = utcDay(now);
    const yesterday = new Date(today.getTime() - 86400_000);
    await h.rt.db.prisma.apiKeyUsage.createMany({
      data: [
        { apiKeyId: free.id, day: today, requests: 100 },
        { apiKeyId: pro.id, day: today, requests: 10 },
        { apiKeyId: pro.id, day: yesterday, requests: 400 },
      ],
    });
    const overview = await admin.overview.keys();
    expect(overview.keysByPlan).toEqual([
      { plan: "free", count: 1 },
      { plan: "pro", count: 1 },
      { plan: "business", count: 0 },
      { plan: "enterprise", count: 0 },
    ]);
    // 110 today + 3/4 of yesterday's 400.
    expect(overview.requests).toEqual({ today: 110, yesterday: 400, last24h: 410 });
    expect(overview.topKeys.map((k) => [k.name, k.requests])).toEqual([
      ["Pro one", 310],
      ["Free one", 100],
    ]);
    h.setNow(undefined);
  });
});
