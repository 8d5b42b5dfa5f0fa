import { loadConfig } from "@petstore/config";
import { ENTERPRISE_NEEDS_LIMITS, PER_MINUTE_ABOVE_PER_DAY, PLAN_NAMES } from "@petstore/contracts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey } from "../src/api-keys/format.ts";
import { KEY_CACHE_TTL_MS } from "../src/api-keys/verifier.ts";
import { databaseOf } from "../src/database/operations.ts";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

describe("API key format (docs/contract.md section 2)", () => {
  it("has the environment prefix, 32 random base62 characters and a 6-character checksum", () => {
    const live = generateApiKey("production");
    const test = generateApiKey("staging");
    expect(live).toMatch(/^pet_live_[0-9A-Za-z]{38}$/);
    expect(test).toMatch(/^pet_test_[0-9A-Za-z]{38}$/);
    expect(parseApiKey(live)).toBe("production");
    expect(parseApiKey(test)).toBe("staging");
    expect(displayPrefix(live)).toHaveLength(12);
    expect(hashApiKey(live)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("rejects a mistyped key without a look-up (checksum)", () => {
    const key = generateApiKey("staging");
    const i = 15;
    const typo = key.slice(0, i) + (key[i] === "a" ? "b" : "a") + key.slice(i + 1);
    expect(parseApiKey(typo)).toBeUndefined();
    expect(parseApiKey(`${key}x`)).toBeUndefined();
    expect(parseApiKey(key.replace("pet_test_", "pet_live_"))).toBeUndefined();
    expect(parseApiKey("")).toBeUndefined();
  });

  it("never repeats (1,000 keys are distinct)", () => {
    expect(new Set(Array.from({ length: 1000 }, () => generateApiKey("staging"))).size).toBe(1000);
  });
});

describe("API key service on the embedded database", () => {
  let database: TestDatabase;
  let rt: Runtime;
  let now = new Date("2026-06-01T12:00:00Z");
  beforeAll(async () => {
    database = await createTestDatabase("pglite", "petstore_api_keys");
    rt = await openRuntime({
      config: loadConfig({ ...database.env, LOG_LEVEL: "silent" }),
      logger: createLogger("silent"),
      clock: () => now,
    });
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  it("authenticates a new key with its plan's limits and rejects the other deployment's keys", async () => {
    const issued = await rt.apiKeys.create({ name: "shop", plan: "pro" }, "test");
    expect(issued.key.startsWith("pet_test_")).toBe(true);
    const caller = await rt.apiKeys.authenticate(issued.key);
    expect(caller).toMatchObject({ keyId: issued.id, plan: "pro", perMinute: 300, perDay: 10_000 });
    expect(await rt.apiKeys.authenticate(generateApiKey("production"))).toBeUndefined();
    expect(await rt.apiKeys.authenticate(generateApiKey("staging"))).toBeUndefined();
  });

  it("stops a revoked key at once on the revoking instance, even though it was cached", async () => {
    const issued = await rt.apiKeys.create({ name: "to revoke", plan: "free" }, "test");
    expect(await rt.apiKeys.authenticate(issued.key)).toBeDefined();
    await rt.apiKeys.revoke(issued.prefix, "test");
    expect(await rt.apiKeys.authenticate(issued.key)).toBeUndefined();
    expect((await rt.apiKeys.get(issued.id)).state).toBe("revoked");
  });

  it("expires keys by the clock", async () => {
    const issued = await rt.apiKeys.create({ name: "short", plan: "free", expiresInSeconds: 3600 }, "test");
    expect(await rt.apiKeys.authenticate(issued.key)).toBeDefined();
    now = new Date(now.getTime() + 3601_000);
    expect(await rt.apiKeys.authenticate(issued.key)).toBeUndefined();
    expect((await rt.apiKeys.get(issued.id)).state).toBe("expired");
  });

  it("rolls: the new key works and the old one keeps working until the grace period ends", async () => {
    const old = await rt.apiKeys.create({ name: "rolling", plan: "business" }, "test");
    const rolled = await rt.apiKeys.roll(old.id, 3600, "test");
    expect(rolled.plan).toBe("business");
    expect(await rt.apiKeys.authenticate(rolled.key)).toBeDefined();
    expect(await rt.apiKeys.authenticate(old.key)).toBeDefined();
    now = new Date(now.getTime() + 3601_000);
    expect(await rt.apiKeys.authenticate(old.key)).toBeUndefined();
    expect(await rt.apiKeys.authenticate(rolled.key)).toBeDefined();
  });

  it("roll with grace 0 revokes the old key now", async () => {
    const old = await rt.apiKeys.create({ name: "rolling now", plan: "free" }, "test");
    await rt.apiKeys.roll(old.id, 0, "test");
    expect(await rt.apiKeys.authenticate(old.key)).toBeUndefined();
  });

  it("writes lastUsedAt at most once a minute", async () => {
    const issued = await rt.apiKeys.create({ name: "busy", plan: "free" }, "test");
    const first = now;
    await rt.apiKeys.authenticate(issued.key);
    await new Promise((r) => setTimeout(r, 50));
    expect((await rt.apiKeys.get(issued.id)).lastUsedAt).toBe(first.toISOString());
    now = new Date(first.getTime() + 30_000);
    await rt.apiKeys.authenticate(issued.key);
    await new Promise((r) => setTimeout(r, 50));
    expect((await rt.apiKeys.get(issued.id)).lastUsedAt).toBe(first.toISOString());
    now = new Date(first.getTime() + 61_000);
    await rt.apiKeys.authenticate(issued.key);
    await new Promise((r) => setTimeout(r, 50));
    expect((await rt.apiKeys.get(issued.id)).lastUsedAt).toBe(now.toISOString());
  });

  it("answers a key from memory for 4 s after reading it, and remembers a valid one past that", async () => {
    const unknown = generateApiKey(rt.config.environment);
    const issued = await rt.apiKeys.create({ name: "cached", plan: "free" }, "test");
    expect(rt.apiKeys.peek(unknown)).toEqual({ kind: "unknown", wasValid: false });
    expect(await rt.apiKeys.authenticate(unknown)).toBeUndefined();
    expect(await rt.apiKeys.authenticate(issued.key)).toBeDefined();
    const readAt = now.getTime();
    now = new Date(readAt + KEY_CACHE_TTL_MS - 1);
    expect(rt.apiKeys.peek(unknown)).toEqual({ kind: "invalid" });
    expect(rt.apiKeys.peek(issued.key)).toMatchObject({ kind: "valid" });
    now = new Date(readAt + KEY_CACHE_TTL_MS + 1);
    expect(rt.apiKeys.peek(unknown)).toEqual({ kind: "unknown", wasValid: false });
    expect(rt.apiKeys.peek(issued.key)).toEqual({ kind: "unknown", wasValid: true });
  });

  it("tells whose a key was when last read, however long ago, while it is live by what was read", async () => {
    const issued = await rt.apiKeys.create(
      { name: "remembered", plan: "free", expiresInSeconds: 600 },
      "test",
    );
    expect(rt.apiKeys.lastKnown(issued.key)).toBeUndefined();
    expect(await rt.apiKeys.authenticate(issued.key)).toBeDefined();
    now = new Date(now.getTime() + 60_000);
    expect(rt.apiKeys.peek(issued.key)).toEqual({ kind: "unknown", wasValid: true });
    expect(rt.apiKeys.lastKnown(issued.key)).toMatchObject({ keyId: issued.id, prefix: issued.prefix });
    expect(rt.apiKeys.lastKnown(generateApiKey(rt.config.environment))).toBeUndefined();
    now = new Date(now.getTime() + 600_000);
    expect(rt.apiKeys.lastKnown(issued.key)).toBeUndefined();
  });

  it("reads a key in use again in the background in the last second of its entry only", async () => {
    const issued = await rt.apiKeys.create({ name: "refreshed", plan: "free" }, "test");
    expect(await rt.apiKeys.authenticate(issued.key)).toBeDefined();
    const readAt = now.getTime();
    const before = rt.apiKeys.keysRead();
    now = new Date(readAt + KEY_CACHE_TTL_MS - 1_500);
    expect(rt.apiKeys.peek(issued.key)).toMatchObject({ kind: "valid" });
    await new Promise((r) => setImmediate(r));
    expect(rt.apiKeys.keysRead()).toBe(before);
    now = new Date(readAt + KEY_CACHE_TTL_MS - 500);
    expect(rt.apiKeys.peek(issued.key)).toMatchObject({ kind: "valid" });
    await new Promise((r) => setImmediate(r));
    expect(rt.apiKeys.keysRead()).toBe(before + 1);
  });

  it("records lastUsedAt of keys first used together, each", async () => {
    const keys = await Promise.all(
      ["one", "two", "three"].map((name) => rt.apiKeys.create({ name, plan: "free" }, "test")),
    );
    await Promise.all(keys.map((k) => rt.apiKeys.authenticate(k.key)));
    await new Promise((r) => setTimeout(r, 50));
    for (const k of keys) expect((await rt.apiKeys.get(k.id)).lastUsedAt).toBe(now.toISOString());
  });

  it("requires custom limits for Enterprise keys", async () => {
    const issued = await rt.apiKeys.create(
      { name: "big", plan: "enterprise", perMinute: 5000, perDay: 1_000_000 },
      "test",
    );
    expect(await rt.apiKeys.authenticate(issued.key)).toMatchObject({ perMinute: 5000, perDay: 1_000_000 });
    await expect(rt.apiKeys.update({ id: issued.id, perMinute: null }, "test")).rejects.toMatchObject({
      code: "validation_failed",
    });
  });

  it("enforces the limits rule itself, whatever the caller validated, and changes nothing", async () => {
    const tooHigh = { details: [{ path: "perMinute", message: PER_MINUTE_ABOVE_PER_DAY }] };
    await expect(
      rt.apiKeys.create({ name: "odd", plan: "pro", perMinute: 2000, perDay: 1000 }, "test"),
    ).rejects.toMatchObject({ code: "validation_failed", ...tooHigh });
    await expect(rt.apiKeys.create({ name: "bare", plan: "enterprise" }, "test")).rejects.toMatchObject({
      details: [{ path: "perMinute", message: ENTERPRISE_NEEDS_LIMITS }],
    });
    expect((await rt.apiKeys.list()).filter((k) => k.name === "odd" || k.name === "bare")).toEqual([]);

    const key = await rt.apiKeys.create({ name: "steady", plan: "pro" }, "test");
    await expect(
      rt.apiKeys.update({ id: key.id, perMinute: 2000, perDay: 1000 }, "test"),
    ).rejects.toMatchObject(tooHigh);
    expect(await rt.apiKeys.get(key.id)).toMatchObject({ perMinute: null, perDay: null });

    const before = await rt.plans.list();
    await expect(rt.plans.update({ plan: "pro", perMinute: 500, perDay: 100 }, "test")).rejects.toMatchObject(
      tooHigh,
    );
    await expect(rt.plans.update({ plan: "pro", perMinute: 0, perDay: 100 }, "test")).rejects.toMatchObject({
      code: "validation_failed",
    });
    expect(await rt.plans.list()).toEqual(before);
  });

  it("lists plans in the one plan order", async () => {
    expect((await rt.plans.list()).map((p) => p.name)).toEqual([...PLAN_NAMES]);
  });

  it("audits every change with who, before and after", async () => {
    const issued = await rt.apiKeys.create({ name: "audited", plan: "free" }, "cli:ops");
    await rt.apiKeys.revoke(issued.id, "cli:ops");
    const entries = await databaseOf(rt).prisma.auditLog.findMany({
      where: { entityId: issued.id },
      orderBy: { id: "asc" },
    });
    expect(entries.map((e) => e.action)).toEqual(["apiKey.create", "apiKey.revoke"]);
    expect(entries.every((e) => e.actor === "cli:ops")).toBe(true);
    expect(JSON.stringify(entries.map((e) => [e.before, e.after]))).not.toContain(issued.key);
  });

  it("resets the account's shared windows, and lifts the account's ban, from any one of its keys", async () => {
    // The limiter's window buckets follow Date.now(): frozen mid-minute, far from a UTC day's end.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2031, 2, 10, 12, 0, 30));
    try {
      const account = await rt.accounts.create(
        { name: "Shared windows", plan: "enterprise", ownerEmail: "shared-windows@example.com" },
        "test",
      );
      await rt.accounts.setLimits({ id: account.id, perMinute: 3, perDay: 3 }, "test");
      const [first, second] = [
        await rt.apiKeys.createInAccount(account.id, { name: "till 1" }, "test"),
        await rt.apiKeys.createInAccount(account.id, { name: "till 2" }, "test"),
      ];
      /** The windows admission checks for a request with `secret`: the account's, shared by its keys. */
      const windowsOf = async (secret: string) => {
        const caller = await rt.apiKeys.authenticate(secret);
        if (!caller) throw new Error("the key does not authenticate");
        return { keyId: caller.rateLimitSubject, perMinute: caller.perMinute, perDay: caller.perDay };
      };
      const [viaFirst, viaSecond] = [await windowsOf(first.key), await windowsOf(second.key)];
      expect(viaFirst).toEqual({ keyId: account.id, perMinute: 3, perDay: 3 });
      expect(viaSecond).toEqual(viaFirst);
      for (let i = 0; i < 3; i++) expect((await rt.rateLimiter.checkKey(viaFirst)).allowed).toBe(true);
      expect((await rt.rateLimiter.checkKey(viaSecond)).code).toBe("rate_limited");

      // Resetting the first key's usage frees the windows the second key counts in.
      await rt.resetApiKeyUsage(first.id, "test");
      const afterReset = await rt.rateLimiter.checkKey(viaSecond);
      expect(afterReset.allowed).toBe(true);
      expect(afterReset.windows.map((w) => w.remaining)).toEqual([2, 2]);

      // Calling on while denied bans the account; lifting the second key's ban lets the first key through again.
      await rt.rateLimiter.checkKey(viaFirst);
      await rt.rateLimiter.checkKey(viaFirst);
      let code: string | undefined;
      for (let i = 0; i < 40 && code !== "key_banned"; i++)
        code = (await rt.rateLimiter.checkKey(viaFirst)).code;
      expect(code).toBe("key_banned");
      await expect
        .poll(async () => (await rt.apiKeys.listOfAccount(account.id)).map((k) => k.state))
        .toEqual(["banned", "banned"]);
      await rt.unbanApiKey(second.id, "test");
      expect((await rt.rateLimiter.checkKey(viaFirst)).code).toBe("rate_limited");
      expect((await rt.apiKeys.listOfAccount(account.id)).map((k) => k.state)).toEqual(["active", "active"]);
      // And a reset after the ban frees the windows for every key once more.
      await rt.resetApiKeyUsage(second.id, "test");
      expect((await rt.rateLimiter.checkKey(viaFirst)).allowed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
