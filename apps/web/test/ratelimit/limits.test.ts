/**
 * Rate limits of the REST API (docs/contract.md section 3; docs/interface.md "Limits"), on the in-process memory
 * store and on Redis (the Upstash REST store is covered store by store in packages/core): headers on every /v1
 * response and their agreement with the window end, exact admission under concurrency, the minute and the UTC-day
 * window, the per-IP bucket of requests without a valid key (X-Forwarded-For only with TRUST_PROXY), failed
 * authentication never costing a key anything, bans and unbans, a plan change applying within 5 s, usage
 * counters, and the readiness report of a store that answers.
 *
 * Every test freezes `Date` (`freezeAt`) far from minute and day boundaries, and moves it where time must pass
 * (a window ending, a ban, the 4 s key cache): the limiter's window buckets follow `Date.now()`, and the harness
 * clock follows `Date` too. Requests go in-process, but for the one whose subject is the socket's peer address.
 */

import { databaseOf, eventually } from "@petstore/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readinessOf } from "../../src/server/readiness.ts";
import {
  DAY_MS,
  expectConsistentHeaders,
  freezeAt,
  frozenNoon,
  MINUTE_MS,
  type Reply,
  STORE_KINDS,
  useRateLimitServer,
  windowEndSeconds,
} from "./support.ts";

const PETS = "/v1/pets?limit=1";
const BAN_SECONDS = 900;

afterEach(() => {
  vi.useRealTimers();
});

const count = (replies: Reply[], status: number) => replies.filter((r) => r.status === status).length;

describe.each(STORE_KINDS)("rate limits over HTTP on the %s store", (kind) => {
  // Ban settings as configured by default: more than 30 denials within 10 minutes ban for 15 minutes.
  const t = useRateLimitServer(kind, `${kind}-main`, { ANONYMOUS_PER_MINUTE: "5", TRUST_PROXY: "true" });
  let ipSeq = 0;
  /** A fresh client address per call, so tests do not share anonymous buckets. */
  const freshIp = () => `198.51.100.${++ipSeq}`;

  it("reports ready for /readyz while the store answers", async () => {
    expect(await readinessOf(t.s.rt)).toEqual({
      status: "ok",
      checks: {
        database: { ok: true, detail: "postgres" },
        rateLimitStore: { ok: true, detail: kind, breaker: "closed" },
      },
    });
  });

  it("puts consistent headers on 200, 404, 401 and 429 responses", async () => {
    freezeAt(frozenNoon());
    const { key } = await t.issue("enterprise", 3, 1000);
    const ok = await t.req(PETS, { key, op: "listPets" });
    expect(ok.status).toBe(200);
    expect(ok.rl).toMatchObject({ limit: 3, remaining: 2 });
    expect(ok.rl.policy).toEqual({ minute: { q: 3, w: 60 }, day: { q: 1000, w: 86_400 } });
    expect(ok.rl.windows.day?.r).toBe(999);
    expectConsistentHeaders(ok, { window: "minute" });

    const missing = await t.req("/v1/pets/999999999", { key, op: "getPet" });
    expect(missing.status).toBe(404);
    expect(missing.rl).toMatchObject({ limit: 3, remaining: 1 });
    expectConsistentHeaders(missing, { window: "minute" });

    // A path that is no operation still counts against the key and carries the headers.
    const nowhere = await t.req("/v1/no-such-resource", { key });
    expect(nowhere.status).toBe(404);
    expect(nowhere.rl).toMatchObject({ limit: 3, remaining: 0 });
    expectConsistentHeaders(nowhere, { window: "minute" });

    const denied = await t.req(PETS, { key, op: "listPets" });
    expect(denied.status).toBe(429);
    expect(denied.body).toMatchObject({ code: "rate_limited", status: 429 });
    expect(denied.body.message).toContain("3 requests per minute");
    expect(denied.rl).toMatchObject({ limit: 3, remaining: 0 });
    expect(denied.rl.windows.day?.r).toBe(997);
    expectConsistentHeaders(denied, { window: "minute" });
    expect(denied.rl.reset).toBe(windowEndSeconds(denied.sentAt, MINUTE_MS));

    const deniedGet = await t.req("/v1/pets/1", { key, op: "getPet" });
    expect(deniedGet.status).toBe(429);
    expectConsistentHeaders(deniedGet, { window: "minute" });

    const ip = freshIp();
    const anonymous = await t.req(PETS, { forwardedFor: ip, op: "listPets" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.rl).toMatchObject({ limit: 5, remaining: 4 });
    expect(anonymous.rl.policy).toEqual({ minute: { q: 5, w: 60 } });
    expectConsistentHeaders(anonymous, { window: "minute" });
    const badKey = await t.req(PETS, { forwardedFor: ip, authorization: "Bearer not-a-key", op: "listPets" });
    expect(badKey.status).toBe(401);
    expect(badKey.rl).toMatchObject({ limit: 5, remaining: 3 });
    expectConsistentHeaders(badKey, { window: "minute" });
  });

  it("admits exactly 60 of 200 concurrent requests of a free key; the denials ban it (default settings)", async () => {
    freezeAt(frozenNoon());
    const { key, id } = await t.issue("free");
    const replies = await Promise.all(Array.from({ length: 200 }, () => t.req(PETS, { key })));
    expect(count(replies, 200)).toBe(60);
    expect(count(replies, 429)).toBe(140);
    const admitted = replies.filter((r) => r.status === 200);
    // Each admitted request saw its own count: remaining 59, 58, ..., 0.
    expect(admitted.map((r) => r.rl.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    for (const r of admitted) {
      expect(r.rl.limit).toBe(60);
      expectConsistentHeaders(r, { window: "minute" });
    }
    // Denials 1..30 are rate limiting; the 31st (> 30 within 10 minutes) bans the key for 15 minutes.
    const denied = replies.filter((r) => r.status === 429);
    const limited = denied.filter((r) => r.body.code === "rate_limited");
    const banned = denied.filter((r) => r.body.code === "key_banned");
    expect([limited.length, banned.length]).toEqual([30, 110]);
    for (const r of limited) {
      expect(r.rl).toMatchObject({ limit: 60, remaining: 0 });
      expectConsistentHeaders(r, { window: "minute" });
    }
    const banEnd = Math.max(...banned.map((r) => r.rl.reset));
    for (const r of banned) {
      expect(r.rl.reset).toBe(banEnd);
      expect(r.rl.retryAfter).toBeGreaterThanOrEqual(BAN_SECONDS - 2);
      // A request whose clock read came before the banning one's sees the end up to 1 s further away.
      expect(r.rl.retryAfter).toBeLessThanOrEqual(BAN_SECONDS + 1);
      expectConsistentHeaders(r, { banReset: banEnd });
    }
    await t.s.rt.analytics?.flush();
    await expect
      .poll(() => t.s.rt.usage.daily(id, 1))
      .toMatchObject([{ requests: 60, rateLimited: 140, bans: 1 }]);
    // Lifted: the 140 denied requests consumed nothing of the day budget.
    await t.s.rt.unbanApiKey(id, "test");
    const after = await t.req(PETS, { key, op: "listPets" });
    expect(after.status).toBe(429);
    expect(after.body.code).toBe("rate_limited");
    expect(after.rl.windows.day?.r).toBe(1000 - 60);
  });

  it("shares one free account's windows among its keys: 200 concurrent requests over 3 keys admit exactly 60, and the ban is the account's", async () => {
    freezeAt(frozenNoon());
    const account = await t.s.rt.accounts.create(
      { name: `Shared ${kind}`, plan: "free", ownerEmail: `shared-${kind}@example.com` },
      "test",
    );
    const keys = await Promise.all(
      [1, 2, 3].map((i) => t.s.rt.apiKeys.createInAccount(account.id, { name: `till ${i}` }, "test")),
    );
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => t.req(PETS, { key: (keys[i % 3] as { key: string }).key })),
    );
    expect(count(replies, 200)).toBe(60);
    const admitted = replies.filter((r) => r.status === 200);
    expect(admitted.map((r) => r.rl.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    const banned = replies.filter((r) => r.body.code === "key_banned");
    expect(banned.length).toBe(110);
    expect(banned[0]?.body.message).toMatch(/^This account's API keys are temporarily banned/);
    await expect
      .poll(async () => (await t.s.rt.apiKeys.listOfAccount(account.id)).map((k) => k.state))
      .toEqual(["banned", "banned", "banned"]);
    // Lifting the ban of one key lifts the account's: every key is let through again (up to its used-up window).
    await t.s.rt.unbanApiKey((keys[0] as { id: string }).id, "test");
    expect((await t.s.rt.apiKeys.listOfAccount(account.id)).map((k) => k.state)).toEqual([
      "active",
      "active",
      "active",
    ]);
    const after = await t.req(PETS, { key: (keys[2] as { key: string }).key });
    expect(after.body.code).toBe("rate_limited");
    expect(after.rl.windows.day?.r).toBe(1000 - 60);
  });

  it("counts remaining down one by one to 0, then denies until the window's end", async () => {
    freezeAt(frozenNoon());
    const { key } = await t.issue("free");
    const seen: number[] = [];
    let reset: number | undefined;
    for (let i = 0; i < 60; i++) {
      const r = await t.req(PETS, { key });
      expect(r.status).toBe(200);
      expectConsistentHeaders(r, { window: "minute" });
      reset ??= r.rl.reset;
      expect(r.rl.reset).toBe(reset);
      seen.push(r.rl.remaining);
    }
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    const denied = await t.req(PETS, { key, op: "listPets" });
    expect(denied.status).toBe(429);
    expect(denied.rl.reset).toBe(reset);
    expectConsistentHeaders(denied, { window: "minute" });
  });

  it("enforces the UTC-day window of an Enterprise key, resetting at midnight UTC", async () => {
    // Per-minute never exceeds per-day (docs/contract.md section 2): the day binds once earlier minutes used it.
    const start = freezeAt(frozenNoon());
    const { key } = await t.issue("enterprise", 4, 6);
    for (let i = 0; i < 4; i++) expect((await t.req(PETS, { key })).status).toBe(200);
    vi.setSystemTime(start + MINUTE_MS);
    for (let i = 0; i < 2; i++) {
      const r = await t.req(PETS, { key });
      expect(r.status).toBe(200);
      // The day window has fewer requests left than the fresh minute window: the headers describe it.
      expect(r.rl).toMatchObject({ limit: 6, remaining: 1 - i });
      expectConsistentHeaders(r, { window: "day" });
    }
    for (let i = 0; i < 2; i++) {
      const r = await t.req(PETS, { key, op: "listPets" });
      expect(r.status).toBe(429);
      expect(r.body.code).toBe("rate_limited");
      expect(r.body.message).toContain("6 requests per day");
      expect(r.rl).toMatchObject({ limit: 6, remaining: 0 });
      expect(r.rl.reset).toBe(windowEndSeconds(r.sentAt, DAY_MS));
      expect(r.rl.reset % 86_400).toBe(0);
      expectConsistentHeaders(r, { window: "day" });
      expect(r.rl.retryAfter).toBeGreaterThan(60);
      // Denied by the day window: nothing taken from the minute window.
      expect(r.rl.windows.minute?.r).toBe(2);
    }
  });

  it("resets the minute window at its end", async () => {
    const start = freezeAt(frozenNoon());
    const end = (Math.floor(start / MINUTE_MS) + 1) * MINUTE_MS;
    const { key } = await t.issue("enterprise", 2, 1000);
    expect((await t.req(PETS, { key })).status).toBe(200);
    expect((await t.req(PETS, { key })).status).toBe(200);
    const denied = await t.req(PETS, { key });
    expect(denied.status).toBe(429);
    expect(denied.rl.reset).toBe(end / 1000);
    expect(denied.rl.retryAfter).toBe(50);
    expectConsistentHeaders(denied, { window: "minute" });

    vi.setSystemTime(end - 1);
    const last = await t.req(PETS, { key });
    expect(last.status).toBe(429);
    expect(last.rl.retryAfter).toBe(1);
    expectConsistentHeaders(last, { window: "minute" });

    vi.setSystemTime(end);
    const next = await t.req(PETS, { key, op: "listPets" });
    expect(next.status).toBe(200);
    expect(next.rl).toMatchObject({ limit: 2, remaining: 1, reset: end / 1000 + 60 });
    expect(next.rl.windows.day?.r).toBe(997);
    expectConsistentHeaders(next, { window: "minute" });
  });

  it("limits requests without a valid key per client IP, taken from X-Forwarded-For (TRUST_PROXY)", async () => {
    freezeAt(frozenNoon());
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      const r = await t.req(PETS, { forwardedFor: ip, op: "listPets" });
      expect(r.status).toBe(401);
      expect(r.rl).toMatchObject({ limit: 5, remaining: 4 - i });
      expectConsistentHeaders(r, { window: "minute" });
    }
    const denied = await t.req(PETS, { forwardedFor: ip, authorization: "Bearer nope", op: "listPets" });
    expect(denied.status).toBe(429);
    expect(denied.body).toMatchObject({ code: "rate_limited" });
    expect(denied.body.message).toContain("5 requests per minute");
    expectConsistentHeaders(denied, { window: "minute" });
    // The right-most X-Forwarded-For hop is the client the trusted proxy saw; earlier hops are the client's say.
    expect((await t.req(PETS, { forwardedFor: `203.0.113.9, ${ip}` })).status).toBe(429);
    const other = await t.req(PETS, { forwardedFor: `${ip}, ${freshIp()}` });
    expect(other.status).toBe(401);
    expect(other.rl.remaining).toBe(4);
    // A valid key this instance knows is not held back by the address's bucket ...
    const { key } = await t.issue("free");
    expect((await t.req(PETS, { forwardedFor: freshIp(), key })).status).toBe(200);
    expect((await t.req(PETS, { forwardedFor: ip, key })).status).toBe(200);
    // ... but a key it does not know yet is looked up only within the address's budget (docs/contract.md
    // section 3): from an address that used it up, it waits for the bucket like any unverified key.
    const unknown = await t.issue("free");
    const held = await t.req(PETS, { forwardedFor: ip, key: unknown.key });
    expect(held.status).toBe(429);
    expect(held.rl.policy).toEqual({ minute: { q: 5, w: 60 } });
  });

  it("never counts failed authentication against a key", async () => {
    freezeAt(frozenNoon());
    const { key, id } = await t.issue("enterprise", 5, 50);
    const revoked = await t.issue("enterprise", 5, 50);
    await t.s.rt.apiKeys.revoke(revoked.id, "test");
    const forged = `${key.slice(0, -4)}${key.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    const attempts = [
      `Bearer ${forged}`,
      `Bearer ${key}x`,
      `Basic ${key}`,
      `Bearer ${revoked.key}`,
      `Bearer ${key.slice(0, 12)}`,
      `bearer  ${key.toLowerCase()}`,
    ];
    for (const authorization of attempts) {
      const r = await t.req(PETS, { authorization, forwardedFor: freshIp(), op: "listPets" });
      expect(r.status, authorization).toBe(401);
      // The anonymous bucket of the address, not the key's windows.
      expect(r.rl.policy).toEqual({ minute: { q: 5, w: 60 } });
    }
    const first = await t.req(PETS, { key, op: "listPets" });
    expect(first.status).toBe(200);
    expect(first.rl.windows).toEqual({
      minute: { r: 4, t: expect.any(Number) },
      day: { r: 49, t: expect.any(Number) },
    });
    await t.s.rt.analytics?.flush();
    const usage = await Promise.all([id, revoked.id].map((k) => t.s.rt.usage.daily(k, 1)));
    expect(usage.map(([u]) => [u?.requests, u?.rateLimited])).toEqual([
      [1, 0],
      [0, 0],
    ]);
  });

  it("applies a plan change within 5 s", async () => {
    const start = freezeAt(frozenNoon());
    const { key } = await t.issue("free");
    const before = await t.req(PETS, { key });
    expect(before.rl.policy).toEqual({ minute: { q: 60, w: 60 }, day: { q: 1000, w: 86_400 } });
    try {
      await t.s.rt.plans.update({ plan: "free", perMinute: 7, perDay: 500 }, "test");
      vi.setSystemTime(start + 5_000);
      const after = await t.req(PETS, { key, op: "listPets" });
      expect(after.status).toBe(200);
      expect(after.rl.policy).toEqual({ minute: { q: 7, w: 60 }, day: { q: 500, w: 86_400 } });
      expect(after.rl).toMatchObject({ limit: 7, remaining: 5 });
      expectConsistentHeaders(after, { window: "minute" });
    } finally {
      await t.s.rt.plans.update({ plan: "free", perMinute: 60, perDay: 1000 }, "test");
    }
  });

  describe("with BAN_THRESHOLD=3, without TRUST_PROXY", () => {
    const t = useRateLimitServer(kind, `${kind}-ban`, {
      BAN_THRESHOLD: "3",
      BAN_BASE_SECONDS: String(BAN_SECONDS),
      ANONYMOUS_PER_MINUTE: "5",
    });

    it("bans a key denied more than BAN_THRESHOLD times, doubling the ban the same day; unban restores it", async () => {
      const start = freezeAt(frozenNoon());
      const { key, id } = await t.issue("enterprise", 2, 1000);
      const prisma = databaseOf(t.s.rt).prisma;
      for (let i = 0; i < 2; i++) expect((await t.req(PETS, { key })).status).toBe(200);
      // Denials 1..3 are plain rate limiting; the 4th (> BAN_THRESHOLD = 3) bans.
      for (let i = 0; i < 3; i++) expect((await t.req(PETS, { key })).body.code).toBe("rate_limited");
      const banned = await t.req(PETS, { key, op: "listPets" });
      expect(banned.status).toBe(429);
      expect(banned.body.code).toBe("key_banned");
      expect(banned.body.message).toMatch(/banned/);
      expect(banned.rl.retryAfter).toBe(BAN_SECONDS);
      expect(banned.rl).toMatchObject({ limit: 2, remaining: 0, reset: start / 1000 + BAN_SECONDS });
      expectConsistentHeaders(banned, { banEndMs: start + BAN_SECONDS * 1000 });
      const again = await t.req(PETS, { key, op: "listPets" });
      expect(again.body.code).toBe("key_banned");
      expect(again.rl.retryAfter).toBe(BAN_SECONDS);

      // The ban is recorded on the key (the limiter's callback runs in the background).
      await eventually(async () => {
        const row = await prisma.apiKey.findUniqueOrThrow({ where: { id } });
        expect(row.bannedUntil?.getTime()).toBe(start + BAN_SECONDS * 1000);
      }, 3_000);
      const listed = (await t.s.rt.apiKeys.list()).find((k) => k.id === id);
      expect(listed).toMatchObject({
        state: "banned",
        bannedUntil: new Date(start + BAN_SECONDS * 1000).toISOString(),
      });

      const lifted = await t.s.rt.unbanApiKey(id, "test");
      expect(lifted).toMatchObject({ bannedUntil: null });
      expect((await prisma.apiKey.findUniqueOrThrow({ where: { id } })).bannedUntil).toBeNull();
      expect(await prisma.auditLog.count({ where: { action: "apiKey.unban", entityId: id } })).toBe(1);
      // No longer banned; the minute window is still used up.
      const afterUnban = await t.req(PETS, { key, op: "listPets" });
      expect(afterUnban.body.code).toBe("rate_limited");
      expectConsistentHeaders(afterUnban, { window: "minute" });

      // The second ban of the same UTC day lasts twice as long.
      for (let i = 0; i < 2; i++) expect((await t.req(PETS, { key })).body.code).toBe("rate_limited");
      const second = await t.req(PETS, { key });
      expect(second.body.code).toBe("key_banned");
      expect(second.rl.retryAfter).toBe(2 * BAN_SECONDS);
      await eventually(async () => {
        const row = await prisma.apiKey.findUniqueOrThrow({ where: { id } });
        expect(row.bannedUntil?.getTime()).toBe(start + 2 * BAN_SECONDS * 1000);
      }, 3_000);

      await t.s.rt.unbanApiKey(id, "test");
      vi.setSystemTime((Math.floor(start / MINUTE_MS) + 1) * MINUTE_MS);
      const restored = await t.req(PETS, { key, op: "listPets" });
      expect(restored.status).toBe(200);
      expect(restored.rl.remaining).toBe(1);
    });

    it("flushes per-key usage counters (requests, 429s, bans, deprecated getPet calls) to the hourly rows", async () => {
      const start = freezeAt(frozenNoon());
      const { key, id } = await t.issue("enterprise", 2, 1000);
      expect((await t.req("/v1/pets/999999", { key })).status).toBe(404);
      expect((await t.req(PETS, { key })).status).toBe(200);
      const codes: (string | undefined)[] = [];
      for (let i = 0; i < 5; i++) codes.push((await t.req("/v1/pets/1", { key })).body.code);
      expect(codes).toEqual(["rate_limited", "rate_limited", "rate_limited", "key_banned", "key_banned"]);
      await t.s.rt.analytics?.flush();
      const day = new Date(Math.floor(start / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
      // The ban reaches the audit log (where bans per day are counted) just after the banning answer.
      await expect
        .poll(() => t.s.rt.usage.daily(id, 1))
        .toEqual([{ day, requests: 2, rateLimited: 5, bans: 1, deprecatedGet: 1 }]);
      const traffic = await t.s.rt.usage.traffic(id, 1);
      expect(traffic.byOperation.find((o) => o.operation === "getPet")).toMatchObject({
        "4xx": 1,
        rate_limited: 3,
        key_banned: 2,
      });
      // The pipeline records the window that refused each 429: the minute window, 2 per minute.
      const hour = new Date(start).getUTCHours();
      expect((await t.s.rt.usage.dayByHour(id, day)).hours[hour]).toMatchObject({
        minuteWindow: 3,
        dayWindow: 0,
        key_banned: 2,
      });
      // Later batches add to the stored row.
      await t.s.rt.unbanApiKey(id, "test");
      vi.setSystemTime(start + MINUTE_MS);
      expect((await t.req(PETS, { key })).status).toBe(200);
      await t.s.rt.analytics?.flush();
      expect(await t.s.rt.usage.daily(id, 1)).toMatchObject([
        { requests: 3, rateLimited: 5, bans: 1, deprecatedGet: 1 },
      ]);
    });

    it("ignores X-Forwarded-For and limits by the socket address", async () => {
      // A minute of its own: the address's bucket is not the one the key look-ups above used.
      freezeAt(frozenNoon() - 30 * MINUTE_MS);
      const replies: Reply[] = [];
      for (let i = 0; i < 6; i++)
        replies.push(await t.req(PETS, { forwardedFor: `192.0.2.${i + 1}`, op: "listPets", socket: true }));
      expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429]);
      expect(replies.map((r) => r.rl.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
      for (const r of replies) expectConsistentHeaders(r, { window: "minute" });
    });
  });
});
