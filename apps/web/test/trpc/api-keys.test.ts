import { utcDay } from "@petstore/core";
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, countRequests, expectTrpcError, type Harness, openHarness, shapeOf } from "./support";

describe("apiKeys procedures (admin)", () => {
  let h: Harness;
  let admin: Caller;
  beforeAll(async () => {
    h = await openHarness();
    admin = (await h.signedIn("admin@example.com")).caller;
  });
  afterAll(() => h?.close());

  it("issues a key whose secret is returned once and works for the REST API", async () => {
    const issued = await admin.apiKeys.create({
      name: "Shop front",
      plan: "pro",
      expiresInSeconds: 30 * 86400,
    });
    expect(issued.key).toMatch(/^pet_test_[0-9A-Za-z]{38}$/);
    expect(issued.prefix).toBe(issued.key.slice(0, 12));
    expect(await h.rt.apiKeys.authenticate(issued.key)).toMatchObject({
      keyId: issued.id,
      plan: "pro",
      perMinute: 300,
    });
    const listed = (await admin.apiKeys.list()).rows.find((k) => k.id === issued.id);
    expect(listed).toMatchObject({
      name: "Shop front",
      plan: "pro",
      environment: "staging",
      state: "active",
      requestsToday: 0,
      createdBy: "user:admin@example.com",
    });
    expect(JSON.stringify(await admin.apiKeys.list())).not.toContain(issued.key);
    expect(listed).not.toHaveProperty("hash");
  });

  it("requires custom limits for Enterprise and validates names", async () => {
    const missing = await expectTrpcError(
      admin.apiKeys.create({ name: "Big", plan: "enterprise" }),
      "BAD_REQUEST",
    );
    expect(shapeOf(missing).data.details).toEqual([
      { path: "perMinute", message: "Enterprise keys need custom per-minute and per-day limits" },
    ]);
    const blank = await expectTrpcError(admin.apiKeys.create({ name: " ", plan: "free" }), "BAD_REQUEST");
    expect(shapeOf(blank).data.details?.[0]).toEqual({ path: "name", message: "must not be empty" });
    const big = await admin.apiKeys.create({
      name: "Big",
      plan: "enterprise",
      perMinute: 5000,
      perDay: 1_000_000,
    });
    expect(await admin.apiKeys.get({ id: big.id })).toMatchObject({
      plan: "enterprise",
      effectivePerMinute: 5000,
      effectivePerDay: 1_000_000,
    });
  });

  it("revokes a key: the REST API stops accepting it", async () => {
    const issued = await admin.apiKeys.create({ name: "To revoke", plan: "free" });
    const revoked = await admin.apiKeys.revoke({ id: issued.id });
    expect(revoked.state).toBe("revoked");
    expect(await h.rt.apiKeys.authenticate(issued.key)).toBeUndefined();
    await expectTrpcError(admin.apiKeys.revoke({ id: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND");
    await expectTrpcError(admin.apiKeys.revoke({ id: "not-a-uuid" }), "BAD_REQUEST");
  });

  it("marks a key as leaked: revoked, shown as leaked, audited with the admin as actor; a revoked key is refused", async () => {
    const issued = await admin.apiKeys.create({ name: "Pasted in a ticket", plan: "free" });
    const marked = await admin.apiKeys.markLeaked({ id: issued.id });
    expect(marked).toMatchObject({ state: "revoked", leakSource: "dashboard", leakUrl: null });
    expect(marked.leakedAt).toBe(marked.revokedAt);
    expect(await h.rt.apiKeys.authenticate(issued.key)).toBeUndefined();
    expect((await admin.apiKeys.list({ query: "Pasted in a ticket" })).rows[0]?.leakedAt).toBe(
      marked.leakedAt,
    );
    const audit = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "apiKey.leak", entityId: issued.id },
    });
    expect(audit?.actor).toBe("user:admin@example.com");
    await expectTrpcError(admin.apiKeys.markLeaked({ id: issued.id }), "BAD_REQUEST");
    await expectTrpcError(
      admin.apiKeys.markLeaked({ id: "00000000-0000-4000-8000-000000000000" }),
      "NOT_FOUND",
    );
  });

  it("rolls a key with a grace period, or revoking at once with 0", async () => {
    const old = await admin.apiKeys.create({ name: "Rolling", plan: "business" });
    const next = await admin.apiKeys.roll({ id: old.id, graceSeconds: 3600 });
    expect(next.key).not.toBe(old.key);
    expect(next.plan).toBe("business");
    expect(await h.rt.apiKeys.authenticate(old.key)).toBeDefined();
    expect(await h.rt.apiKeys.authenticate(next.key)).toBeDefined();
    const oldView = await admin.apiKeys.get({ id: old.id });
    expect(oldView.state).toBe("expiring");
    expect(oldView.rolledToId).toBe(next.id);
    const again = await admin.apiKeys.roll({ id: next.id, graceSeconds: 0 });
    expect((await admin.apiKeys.get({ id: next.id })).state).toBe("revoked");
    expect((await admin.apiKeys.get({ id: again.id })).state).toBe("active");
    await expectTrpcError(admin.apiKeys.roll({ id: again.id, graceSeconds: 8 * 86400 }), "BAD_REQUEST");
    const revoked = await admin.apiKeys.create({ name: "Revoked", plan: "free" });
    await admin.apiKeys.revoke({ id: revoked.id });
    const refused = await expectTrpcError(
      admin.apiKeys.roll({ id: revoked.id, graceSeconds: 0 }),
      "BAD_REQUEST",
    );
    expect(refused.message).toBe(`Key ${revoked.prefix} is revoked and cannot be rolled.`);
  });

  it("refuses to roll a key in its grace period, naming the newest key of its lineage; new keys keep the lineage's expiry", async () => {
    const first = await admin.apiKeys.create({ name: "Lineage", plan: "pro", expiresInSeconds: 90 * 86400 });
    const expiry = first.expiresAt;
    const second = await admin.apiKeys.roll({ id: first.id, graceSeconds: 3600 });
    expect(second.expiresAt).toBe(expiry);
    // Rolling the old key again, while it is in its grace period, is refused: it names its successor.
    const again = await expectTrpcError(admin.apiKeys.roll({ id: first.id, graceSeconds: 3600 }), "CONFLICT");
    expect(again.message).toBe(
      `Key ${first.prefix}… was already rolled to ${second.prefix}…; roll ${second.prefix}… instead.`,
    );
    const third = await admin.apiKeys.roll({ id: second.id, graceSeconds: 7 * 86400 });
    // The third key has the lineage's expiry, not the second key's grace end.
    expect(third.expiresAt).toBe(expiry);
    const oldest = await expectTrpcError(admin.apiKeys.roll({ id: first.id, graceSeconds: 0 }), "CONFLICT");
    expect(oldest.message).toBe(
      `Key ${first.prefix}… was already rolled to ${second.prefix}…; roll ${third.prefix}… (the newest key of its lineage) instead.`,
    );
    // Nothing changed by the refusals: each key is rolled to exactly one other, and the key page shows both links.
    expect(await admin.apiKeys.get({ id: first.id })).toMatchObject({
      rolledFrom: null,
      rolledTo: { id: second.id, prefix: second.prefix },
      state: "expiring",
    });
    expect(await admin.apiKeys.get({ id: second.id })).toMatchObject({
      rolledFrom: { id: first.id, prefix: first.prefix },
      rolledTo: { id: third.id, prefix: third.prefix },
    });
    expect(await admin.apiKeys.get({ id: third.id })).toMatchObject({
      rolledFrom: { id: second.id, prefix: second.prefix },
      rolledTo: null,
      state: "active",
      expiresAt: expiry,
    });
    const lineage = await databaseOf(h.rt).prisma.apiKey.count({ where: { name: "Lineage" } });
    expect(lineage).toBe(3);
  });

  it("of concurrent rolls of one key exactly one succeeds; the others are refused and create nothing", async () => {
    const key = await admin.apiKeys.create({ name: "Rolled at once", plan: "free" });
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () =>
        admin.apiKeys.roll({ id: key.id, graceSeconds: 3600 }).then(
          () => "OK",
          (error: { code: string }) => error.code,
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(["CONFLICT", "CONFLICT", "CONFLICT", "CONFLICT", "CONFLICT", "OK"]);
    const rows = await databaseOf(h.rt).prisma.apiKey.findMany({ where: { name: "Rolled at once" } });
    expect(rows).toHaveLength(2);
    expect(rows.filter((r) => r.rolledToId === null)).toHaveLength(1);
    expect(rows.find((r) => r.id === key.id)?.expiresAt).not.toBeNull();
    expect(rows.find((r) => r.id !== key.id)?.expiresAt).toBeNull();
  });

  it("changes plan and custom limits", async () => {
    const key = await admin.apiKeys.create({ name: "Upgrade me", plan: "free" });
    expect(await admin.apiKeys.changePlan({ id: key.id, plan: "business" })).toMatchObject({
      plan: "business",
      effectivePerMinute: 1000,
    });
    await expectTrpcError(admin.apiKeys.changePlan({ id: key.id, plan: "enterprise" }), "BAD_REQUEST");
    const inverted = await expectTrpcError(
      admin.apiKeys.changePlan({ id: key.id, plan: "enterprise", perMinute: 10, perDay: 5 }),
      "BAD_REQUEST",
    );
    expect(shapeOf(inverted).data.details?.[0]?.path).toBe("perMinute");
    expect(
      await admin.apiKeys.changePlan({ id: key.id, plan: "enterprise", perMinute: 10, perDay: 50 }),
    ).toMatchObject({ plan: "enterprise", perMinute: 10, perDay: 50 });
    expect(
      await admin.apiKeys.changePlan({ id: key.id, plan: "pro", perMinute: null, perDay: null }),
    ).toMatchObject({ plan: "pro", perMinute: null, effectivePerMinute: 300 });
  });

  it("issues a key with the scopes asked for (all by default) and changes them, audited", async () => {
    const all = await admin.apiKeys.create({ name: "Everything", plan: "free" });
    expect(all.scopes).toEqual(["pets:read", "pets:write", "orders:read", "orders:write"]);
    const reader = await admin.apiKeys.create({ name: "Shop window", plan: "free", scopes: ["pets:read"] });
    expect(reader.scopes).toEqual(["pets:read"]);
    expect(await h.rt.apiKeys.authenticate(reader.key)).toMatchObject({ scopes: ["pets:read"] });
    expect((await admin.apiKeys.list()).rows.find((k) => k.id === reader.id)?.scopes).toEqual(["pets:read"]);

    // Order and duplicates do not matter: the set is stored in the one order.
    const changed = await admin.apiKeys.changeScopes({
      id: reader.id,
      scopes: ["pets:write", "pets:read", "pets:write"],
    });
    expect(changed.scopes).toEqual(["pets:read", "pets:write"]);
    expect((await admin.apiKeys.get({ id: reader.id })).scopes).toEqual(["pets:read", "pets:write"]);
    expect(await h.rt.apiKeys.authenticate(reader.key)).toMatchObject({
      scopes: ["pets:read", "pets:write"],
    });
    const audit = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "apiKey.scopes", entityId: reader.id },
    });
    expect(audit).toMatchObject({
      actor: "user:admin@example.com",
      before: { scopes: ["pets:read"] },
      after: { scopes: ["pets:read", "pets:write"] },
    });

    const none = await expectTrpcError(
      admin.apiKeys.changeScopes({ id: reader.id, scopes: [] }),
      "BAD_REQUEST",
    );
    expect(shapeOf(none).data.details).toEqual([
      {
        path: "scopes",
        message: "must name at least one scope (pets:read, pets:write, orders:read, orders:write)",
      },
    ]);
    const unknown = await expectTrpcError(
      admin.apiKeys.create({ name: "Admin", plan: "free", scopes: ["pets:admin" as "pets:read"] }),
      "BAD_REQUEST",
    );
    expect(shapeOf(unknown).data.details).toEqual([
      { path: "scopes.0", message: "must be one of pets:read, pets:write, orders:read, orders:write" },
    ]);
    expect((await admin.apiKeys.get({ id: reader.id })).scopes).toEqual(["pets:read", "pets:write"]);
  });

  it("keeps a key to known scopes and at least one in the database itself", async () => {
    const key = await admin.apiKeys.create({ name: "Guarded", plan: "free" });
    const prisma = databaseOf(h.rt).prisma;
    for (const scopes of [[], ["pets:delete"]])
      await expect(prisma.apiKey.update({ where: { id: key.id }, data: { scopes } })).rejects.toThrow();
    await expect(
      prisma.$executeRawUnsafe(`UPDATE "ApiKey" SET "scopes" = NULL WHERE "id" = '${key.id}'`),
    ).rejects.toThrow();
    expect((await admin.apiKeys.get({ id: key.id })).scopes).toEqual([
      "pets:read",
      "pets:write",
      "orders:read",
      "orders:write",
    ]);
  });

  it("audits a ban with the system as actor, lifts it and audits that", async () => {
    const key = await admin.apiKeys.create({ name: "Banned", plan: "free" });
    const until = new Date(Date.now() + 1_800_000);
    await h.rt.apiKeys.recordBan(key.id, until, { level: 2, durationSeconds: 1800 });
    expect((await admin.apiKeys.get({ id: key.id })).state).toBe("banned");
    const ban = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "apiKey.ban", entityId: key.id },
    });
    expect(ban).toMatchObject({
      actor: "system",
      entityType: "apiKey",
      after: { prefix: key.prefix, bannedUntil: until.toISOString(), level: 2, durationSeconds: 1800 },
    });
    expect((await admin.apiKeys.liftBan({ id: key.id })).state).toBe("active");
    const audit = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "apiKey.unban", entityId: key.id },
    });
    expect(audit?.actor).toBe("user:admin@example.com");
  });

  it("shows a chosen UTC day by hour with the 429s split by refusing window, and refuses a bad or future day", async () => {
    const key = await admin.apiKeys.create({ name: "Refused", plan: "free" });
    const yesterday = new Date(utcDay(new Date()).getTime() - 86_400_000);
    const isoYesterday = yesterday.toISOString().slice(0, 10);
    const at = (hour: number) => new Date(yesterday.getTime() + hour * 3_600_000);
    countRequests(h.rt, key.id, at(9), 3);
    const refuse = (hour: number, window: "minute" | "day" | undefined, n: number) => {
      for (let i = 0; i < n; i++)
        h.rt.analytics?.record({
          keyId: key.id,
          operation: "listPets",
          outcome: "rate_limited",
          ...(window ? { window } : {}),
          status: 429,
          durationMs: 1,
          at: at(hour).getTime(),
          clientIp: "192.0.2.1",
          requestId: `refused-${hour}-${i}`,
        });
    };
    refuse(9, "minute", 4);
    refuse(23, "day", 2);
    refuse(23, undefined, 1);
    countRequests(h.rt, key.id, at(23), 5, "key_banned");
    await h.rt.analytics?.flush();

    const { day, hours } = await admin.apiKeys.dayByHour({ id: key.id, day: isoYesterday });
    expect(day).toBe(isoYesterday);
    expect(hours).toHaveLength(24);
    expect(hours[9]).toMatchObject({ "2xx": 3, rate_limited: 4, minuteWindow: 4, dayWindow: 0, total: 7 });
    expect(hours[23]).toMatchObject({
      rate_limited: 3,
      minuteWindow: 0,
      dayWindow: 2,
      windowUnrecorded: 1,
      key_banned: 5,
    });
    expect(hours.filter((x) => x.total > 0)).toHaveLength(2);

    const malformed = await expectTrpcError(
      admin.apiKeys.dayByHour({ id: key.id, day: "27/11/2026" }),
      "BAD_REQUEST",
    );
    expect(shapeOf(malformed).data.details?.[0]).toMatchObject({ path: "day" });
    const tomorrow = new Date(utcDay(new Date()).getTime() + 86_400_000).toISOString().slice(0, 10);
    const future = await expectTrpcError(
      admin.apiKeys.dayByHour({ id: key.id, day: tomorrow }),
      "BAD_REQUEST",
    );
    expect(shapeOf(future).data.details?.[0]?.message).toContain("is in the future");
    const staff = (await h.signedIn("staff@example.com")).caller;
    await expectTrpcError(staff.apiKeys.dayByHour({ id: key.id, day: isoYesterday }), "FORBIDDEN");
  });

  it("shows 30 days of usage and resets today's counters", async () => {
    const key = await admin.apiKeys.create({ name: "Busy", plan: "free" });
    const today = utcDay(new Date());
    const threeDaysAgo = new Date(today.getTime() - 3 * 86400_000);
    countRequests(h.rt, key.id, today, 35);
    countRequests(h.rt, key.id, today, 7, "2xx", "getPet");
    countRequests(h.rt, key.id, today, 2, "rate_limited");
    countRequests(h.rt, key.id, today, 1, "key_banned");
    countRequests(h.rt, key.id, threeDaysAgo, 8);
    countRequests(h.rt, key.id, threeDaysAgo, 2, "4xx", "getPet");
    await h.rt.analytics?.flush();
    await h.rt.apiKeys.recordBan(key.id, new Date(Date.now() + 60_000));
    const usage = await admin.apiKeys.usage({ id: key.id });
    expect(usage).toHaveLength(30);
    expect(usage.at(-1)).toEqual({
      day: today.toISOString().slice(0, 10),
      requests: 42,
      rateLimited: 3,
      bans: 1,
      deprecatedGet: 7,
    });
    expect(usage.at(-4)).toMatchObject({ requests: 10, deprecatedGet: 2 });
    expect(usage.slice(0, 26).every((d) => d.requests === 0)).toBe(true);
    expect((await admin.apiKeys.get({ id: key.id })).requestsToday).toBe(42);
    const traffic = await admin.apiKeys.traffic({ id: key.id });
    expect(traffic.requestsToday).toBe(42);
    expect(traffic.byOutcome).toEqual([
      { outcome: "2xx", requests: 50 },
      { outcome: "4xx", requests: 2 },
      { outcome: "rate_limited", requests: 2 },
      { outcome: "key_banned", requests: 1 },
      { outcome: "5xx", requests: 0 },
    ]);
    const recent = await admin.apiKeys.recentRequests({ id: key.id });
    expect(recent).toHaveLength(55);
    expect(recent[0]).toMatchObject({ status: 429, clientIp: "192.0.2.1", at: today.toISOString() });
    expect(recent.at(-1)?.at).toBe(threeDaysAgo.toISOString());
    expect(recent.filter((r) => r.operation === "getPet" && r.status === 404)).toHaveLength(2);

    await admin.apiKeys.resetUsage({ id: key.id });
    expect((await admin.apiKeys.list()).rows.find((k) => k.id === key.id)?.requestsToday).toBe(0);
    const audit = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "apiKey.resetUsage", entityId: key.id },
    });
    expect(audit?.before).toMatchObject({ requests: 42, rateLimited: 3 });
    await expectTrpcError(admin.apiKeys.usage({ id: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND");
    await expectTrpcError(admin.apiKeys.usage({ id: key.id, days: 365 }), "BAD_REQUEST");
  });
});
