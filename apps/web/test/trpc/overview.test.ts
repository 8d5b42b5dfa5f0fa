import { utcDay } from "@petstore/core";
import { describe, expect, it } from "vitest";
import { countRequests, useHarness } from "./support";

describe("overview procedures", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");
  const staff = h.as("staff@example.com");

  it("counts animals by status for staff", async () => {
    expect(await staff.overview.animals()).toEqual([
      { status: "available", count: 18, exact: true },
      { status: "pending", count: 6, exact: true },
      { status: "sold", count: 6, exact: true },
      { status: "none", count: 6, exact: true },
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
    countRequests(h.rt, free.id, today, 100);
    countRequests(h.rt, pro.id, today, 10);
    countRequests(h.rt, pro.id, yesterday, 400);
    // 429s and requests without a key are not "requests" of a key.
    countRequests(h.rt, pro.id, today, 9, "rate_limited");
    await h.rt.analytics?.flush();
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
    countRequests(h.rt, key.id, new Date(), 7);
    await h.rt.analytics?.flush();
    // Counted and not flushed yet: every screen includes them.
    countRequests(h.rt, key.id, new Date(), 5, "4xx", "createPet");
    const fromOverview = (await admin.overview.keys()).topKeys.find((k) => k.id === key.id)?.requestsToday;
    const fromList = (await admin.apiKeys.list({ query: "Same everywhere" })).rows[0]?.requestsToday;
    const fromPage = (await admin.apiKeys.get({ id: key.id })).requestsToday;
    const fromChart = (await admin.apiKeys.usage({ id: key.id, days: 7 })).at(-1)?.requests;
    const fromAnalytics = (await admin.apiKeys.traffic({ id: key.id, days: 7 })).requestsToday;
    expect([fromOverview, fromList, fromPage, fromChart, fromAnalytics]).toEqual([12, 12, 12, 12, 12]);
    await h.rt.analytics?.flush();
    expect((await admin.overview.keys()).topKeys.find((k) => k.id === key.id)?.requestsToday).toBe(12);
    expect((await admin.apiKeys.get({ id: key.id })).requestsToday).toBe(12);
  });
});
