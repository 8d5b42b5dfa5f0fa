/**
 * The monthly quota over HTTP (docs/contract.md section 3, "Monthly quota"), on the memory store and on Redis: an
 * account's keys share the UTC calendar month, its end answers 429 `quota_exceeded` with Retry-After to the 1st,
 * both header families and `GET /v1/me` show it, and the month starts over at 00:00 UTC on the 1st (a fake clock).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { expectConsistentHeaders, freezeAt, monthEndMs, STORE_KINDS, useRateLimitServer } from "./support.ts";

const PETS = "/v1/pets?limit=1";

afterEach(() => {
  vi.useRealTimers();
});

describe.each(STORE_KINDS)("the monthly quota over HTTP on the %s store", (kind) => {
  const t = useRateLimitServer(kind, `${kind}-quota`);

  it("is shared by an account's keys, refuses with quota_exceeded and Retry-After to the month's end, and starts over on the 1st", async () => {
    // 10 s before 00:00 UTC on 1 May of next year: the last seconds of April (30 days).
    const mayFirst = Date.UTC(new Date().getUTCFullYear() + 1, 4, 1);
    freezeAt(mayFirst - 10_000);
    const account = await t.s.rt.accounts.create(
      { name: `Quota ${kind}`, plan: "pro", ownerEmail: `quota-${kind}@example.com` },
      "test",
    );
    await t.s.rt.accounts.setLimits({ id: account.id, perMinute: null, perDay: null, perMonth: 5 }, "test");
    const [a, b] = await Promise.all(
      [1, 2].map((i) => t.s.rt.apiKeys.createInAccount(account.id, { name: `till ${i}` }, "test")),
    );
    const replies = [];
    for (let i = 0; i < 5; i++)
      replies.push(await t.req(PETS, { key: (i % 2 ? a : b)?.key, op: "listPets" }));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(replies.map((r) => r.rl.windows.month?.r)).toEqual([4, 3, 2, 1, 0]);
    const last = replies[4] as (typeof replies)[number];
    expect(last.rl.policy.month).toEqual({ q: 5, w: 30 * 86_400 });
    expectConsistentHeaders(last, { window: "month" });

    const me = await t.req("/v1/me", { key: a?.key });
    expect(me.status).toBe(429);
    expect(me.body).toMatchObject({ code: "quota_exceeded", status: 429 });
    expect(me.body.message).toContain("monthly quota of 5 requests");
    expectConsistentHeaders(me, { window: "month" });
    expect(me.rl.retryAfter).toBe(Math.ceil((mayFirst - me.sentAt) / 1000));
    expect(me.rl.reset).toBe(monthEndMs(me.sentAt) / 1000);
    // The other key of the account is refused the same way; refusals take nothing from the minute or the day.
    const other = await t.req(PETS, { key: b?.key, op: "listPets" });
    expect(other.body.code).toBe("quota_exceeded");
    expect(other.rl.windows.minute?.r).toBe(replies[4]?.rl.windows.minute?.r);

    expect(await t.s.rt.forAccount(account.id).monthQuota()).toEqual({
      limit: 5,
      used: 5,
      resetMs: mayFirst,
    });

    freezeAt(mayFirst + 1_000);
    const may = await t.req("/v1/me", { key: b?.key });
    expect(may.status).toBe(200);
    expect(may.body).toMatchObject({
      plan: { limits: { perMonth: 5 } },
      rateLimit: {
        month: {
          limit: 5,
          remaining: 4,
          resetsAt: new Date(Date.UTC(new Date(mayFirst).getUTCFullYear(), 5, 1)).toISOString(),
        },
      },
    });
    expect(may.rl.policy.month).toEqual({ q: 5, w: 31 * 86_400 });
  });

  it("applies a plan's quota to keys outside accounts, and none when the plan has none", async () => {
    freezeAt(Date.UTC(new Date().getUTCFullYear() + 1, 6, 15, 12));
    const plan = (await t.s.rt.plans.list()).find((p) => p.name === "business");
    await t.s.rt.plans.update(
      { plan: "business", perMinute: plan?.perMinute ?? 100, perDay: plan?.perDay ?? 1000, perMonth: 2 },
      "test",
    );
    try {
      const { key } = await t.issue("business");
      expect((await t.req(PETS, { key })).rl.policy.month).toEqual({ q: 2, w: 31 * 86_400 });
      await t.req(PETS, { key });
      expect((await t.req(PETS, { key })).body.code).toBe("quota_exceeded");
      const { key: free } = await t.issue("free");
      const r = await t.req(PETS, { key: free });
      expect(r.status).toBe(200);
      expect(Object.keys(r.rl.policy)).toEqual(["minute", "day"]);
      const me = await t.req("/v1/me", { key: free });
      expect(me.body).toMatchObject({ plan: { limits: { perMonth: null } }, rateLimit: { month: null } });
    } finally {
      await t.s.rt.plans.update(
        { plan: "business", perMinute: plan?.perMinute ?? 100, perDay: plan?.perDay ?? 1000, perMonth: null },
        "test",
      );
    }
  });
});
