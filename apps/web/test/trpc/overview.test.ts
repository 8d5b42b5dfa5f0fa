import { utcDay } from "@petstore/core";
import { databaseOf } from "@petstore/core/testing";
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

  it("shows working keys by plan, requests today and yesterday, and the busiest keys today", async () => {
    const now = new Date("2032-06-10T06:00:00Z");
    h.setNow(now);
    const free = await admin.apiKeys.create({ name: "Free one", plan: "free" });
    const pro = await admin.apiKeys.create({ name: "Pro one", plan: "pro" });
    const revoked = await admin.apiKeys.create({ name: "Revoked", plan: "pro" });
    await admin.apiKeys.revoke({ id: revoked.id });
    const today = utcDay(now);
    const yesterday = new Date(today.getTime() - 86400_000);
    await databaseOf(h.rt).prisma.apiKeyUsage.createMany({
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
    expect(overview.requests).toEqual({ today: 110, yesterday: 400 });
    expect(overview.topKeys.map((k) => [k.name, k.requestsToday])).toEqual([
      ["Free one", 100],
      ["Pro one", 10],
    ]);
    h.setNow(undefined);
  });

  it("shows the same requests today for a key as the key list, the key's page and its usage chart", async () => {
    const key = await admin.apiKeys.create({ name: "Same everywhere", plan: "business" });
    const limits = { keyId: key.id, perMinute: 1000, perDay: 100_000 };
    await databaseOf(h.rt).prisma.apiKeyUsage.create({
      data: { apiKeyId: key.id, day: utcDay(new Date()), requests: 7 },
    });
    // Counted by the rate limiter and not flushed yet: every screen includes them.
    for (let i = 0; i < 5; i++) await h.rt.rateLimiter.checkKey(limits);
    const fromOverview = (await admin.overview.keys()).topKeys.find((k) => k.id === key.id)?.requestsToday;
    const fromList = (await admin.apiKeys.list({ query: "Same everywhere" })).rows[0]?.requestsToday;
    const fromPage = (await admin.apiKeys.get({ id: key.id })).requestsToday;
    const fromChart = (await admin.apiKeys.usage({ id: key.id, days: 7 })).at(-1)?.requests;
    expect([fromOverview, fromList, fromPage, fromChart]).toEqual([12, 12, 12, 12]);
    await h.rt.rateLimiter.flushUsage();
    expect((await admin.overview.keys()).topKeys.find((k) => k.id === key.id)?.requestsToday).toBe(12);
    expect((await admin.apiKeys.get({ id: key.id })).requestsToday).toBe(12);
  });
});
