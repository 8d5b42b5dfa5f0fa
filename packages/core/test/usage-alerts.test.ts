/**
 * Usage alerts (docs/contract.md section 7, "Usage alerts"), two instances (runtimes) on one PostgreSQL database
 * and one Redis: the thresholds of an account's day and month windows are reached from the limiter's own counts
 * (as admission hands them over), each alert is sent once per window and threshold across the instances, also when
 * both reach it in the same second, as a signed `usage.threshold` event to the account's endpoints and the store's
 * (never another account's) and a mail to the owners, logged without SMTP_URL.
 */
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { loadConfig } from "@petstore/config";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseOf } from "../src/database/operations.ts";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { deleteKeys, REDIS_URL } from "../src/testing/rate-limit-stores.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../src/testing/webhook-receiver.ts";
import { purgeUsageAlerts, reachedThresholds } from "../src/usage/alerts.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

const PREFIX = `alerts-test:${process.pid}:${randomUUID().slice(0, 8)}`;
/** Frozen in the middle of a UTC day, far from its end and the month's. */
const NOW = Date.UTC(2031, 4, 14, 12, 0, 10);

describe("usage alerts across two instances", () => {
  let database: TestDatabase;
  let a: Runtime;
  let b: Runtime;
  let receiver: WebhookReceiver;
  const logged: Record<string, unknown>[] = [];

  const open = (sink?: Writable) =>
    openRuntime({
      config: loadConfig({
        ...database.env,
        REDIS_URL,
        RATE_LIMIT_PREFIX: PREFIX,
        LOG_LEVEL: "info",
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
        WEBHOOKS_POLL_INTERVAL_MS: "100",
      }),
      logger: createLogger(sink ? "info" : "silent", sink),
    });

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    database = await createTestDatabase("postgres", "petstore_alerts");
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) logged.push(JSON.parse(line));
        done();
      },
    });
    [a, b] = await Promise.all([open(sink), open(sink)]);
    receiver = await startWebhookReceiver();
    a.webhooks.start();
  });
  afterAll(async () => {
    vi.useRealTimers();
    await Promise.all([a?.close(), b?.close()]);
    await receiver?.close();
    await database?.remove();
    await deleteKeys(PREFIX);
  });

  /** An account with an owner, its limits and thresholds, and `keys` keys. */
  async function account(name: string, perDay: number, perMonth: number, thresholds: number[]) {
    const created = await a.accounts.create(
      { name, plan: "enterprise", ownerEmail: `owner@${name.toLowerCase()}.example` },
      "test",
    );
    await databaseOf(a).prisma.user.create({
      data: {
        email: `owner@${name.toLowerCase()}.example`,
        name: "Owner",
        role: "owner",
        passwordHash: "-",
        accountId: created.id,
      },
    });
    await a.accounts.setLimits({ id: created.id, perMinute: perDay, perDay, perMonth }, "test");
    await a.accounts.setAlertThresholds({ id: created.id, thresholds }, "test");
    const keys = await Promise.all(
      [1, 2].map((i) => a.apiKeys.createInAccount(created.id, { name: `till ${i}` }, "test")),
    );
    return { id: created.id, keys: keys.map((k) => k.key) };
  }

  /** One request of `key` through `rt` as admission makes it: the check, then the alerts' look at its counts. */
  async function request(rt: Runtime, key: string) {
    const caller = await rt.apiKeys.authenticate(key);
    if (!caller) throw new Error("no caller");
    const decision = await rt.rateLimiter.checkKey({
      keyId: caller.rateLimitSubject,
      perMinute: caller.perMinute,
      perDay: caller.perDay,
      perMonth: caller.perMonth,
    });
    rt.usageAlerts.observe(caller, decision);
    return decision;
  }

  it("sends each threshold of the day and the month once, when requests on both instances reach them in the same second", async () => {
    const shop = await account("Pawsome", 10, 10, [50, 100]);
    const other = await account("Otherwise", 1000, 1000, [80]);
    const secret = (e: { secret: string }) => e.secret;
    const own = await a
      .forAccount(shop.id)
      .webhooks.create(
        { url: `${receiver.origin}/own`, eventTypes: ["usage.threshold"], description: "" },
        "test",
      );
    const store = await a.webhooks.create(
      { url: `${receiver.origin}/store`, eventTypes: ["usage.threshold"], description: "" },
      "test",
    );
    await a
      .forAccount(other.id)
      .webhooks.create(
        { url: `${receiver.origin}/other`, eventTypes: ["usage.threshold"], description: "" },
        "test",
      );
    // 16 requests at once over both instances and both keys: 10 admitted, counted atomically in Redis.
    const decisions = await Promise.all(
      Array.from({ length: 16 }, (_, i) => request(i % 2 ? a : b, shop.keys[i % 2 === 0 ? 0 : 1] as string)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    await Promise.all([a.usageAlerts.settled(), b.usageAlerts.settled()]);

    const rows = await databaseOf(a).prisma.usageAlert.findMany({
      orderBy: [{ window: "asc" }, { threshold: "asc" }],
    });
    expect(
      rows.map((r) => [r.accountId, r.window, r.windowStart.toISOString(), r.threshold, r.limit, r.count]),
    ).toEqual([
      [shop.id, "day", "2031-05-14T00:00:00.000Z", 50, 10, 5],
      [shop.id, "day", "2031-05-14T00:00:00.000Z", 100, 10, 10],
      [shop.id, "month", "2031-05-01T00:00:00.000Z", 50, 10, 5],
      [shop.id, "month", "2031-05-01T00:00:00.000Z", 100, 10, 10],
    ]);

    // Signed events, to the account's endpoint and the store's, never to another account's.
    const ownGot = await receiver.waitFor((r) => r.path === "/own", 4);
    const storeGot = await receiver.waitFor((r) => r.path === "/store", 4);
    const bodies = ownGot.map(
      (r) =>
        new Webhook(secret(own)).verify(r.body, r.headers) as { type: string; data: Record<string, unknown> },
    );
    for (const r of storeGot)
      expect(() => new Webhook(secret(store)).verify(r.body, r.headers)).not.toThrow();
    expect(receiver.received.filter((r) => r.path === "/other")).toEqual([]);
    expect(bodies.map((x) => x.type)).toEqual(Array(4).fill("usage.threshold"));
    expect(
      bodies
        .map((x) => x.data)
        .sort((p, q) => `${p.window}${p.threshold}`.localeCompare(`${q.window}${q.threshold}`)),
    ).toEqual([
      {
        accountId: shop.id,
        accountName: "Pawsome",
        window: "day",
        threshold: 100,
        limit: 10,
        count: 10,
        resetsAt: "2031-05-15T00:00:00.000Z",
      },
      {
        accountId: shop.id,
        accountName: "Pawsome",
        window: "day",
        threshold: 50,
        limit: 10,
        count: 5,
        resetsAt: "2031-05-15T00:00:00.000Z",
      },
      {
        accountId: shop.id,
        accountName: "Pawsome",
        window: "month",
        threshold: 100,
        limit: 10,
        count: 10,
        resetsAt: "2031-06-01T00:00:00.000Z",
      },
      {
        accountId: shop.id,
        accountName: "Pawsome",
        window: "month",
        threshold: 50,
        limit: 10,
        count: 5,
        resetsAt: "2031-06-01T00:00:00.000Z",
      },
    ]);

    // The owner's mail, logged without SMTP_URL: once per alert.
    const mails = logged.filter((l) => l.msg === "usage alert mail (no SMTP_URL: logged instead)");
    expect(mails.map((m) => m.to)).toEqual(Array(4).fill("owner@pawsome.example"));
    expect(mails.map((m) => m.subject)).toContain("Pawsome: 50% of the day's API requests used");
  });

  it("sends an alert reached on both instances at once only once (the first insert wins)", async () => {
    const shop = await account("Twice", 100, 1000, [80]);
    const crossed = {
      accountId: shop.id,
      window: "day" as const,
      windowStart: new Date(Date.UTC(2031, 4, 14)),
      resetsAt: new Date(Date.UTC(2031, 4, 15)),
      threshold: 80,
      limit: 100,
      count: 80,
    };
    const sent = await Promise.all([
      a.usageAlerts.send(crossed),
      b.usageAlerts.send(crossed),
      a.usageAlerts.send(crossed),
    ]);
    expect(sent.filter(Boolean)).toHaveLength(1);
    expect(await databaseOf(a).prisma.usageAlert.count({ where: { accountId: shop.id } })).toBe(1);
    // Housekeeping keeps a row while its window can still be reached, and drops it 62 days after the window began.
    const prisma = databaseOf(a).prisma;
    await purgeUsageAlerts(prisma, new Date(Date.UTC(2031, 6, 14)));
    expect(await prisma.usageAlert.count({ where: { accountId: shop.id } })).toBe(1);
    await purgeUsageAlerts(prisma, new Date(Date.UTC(2031, 6, 16)));
    expect(await prisma.usageAlert.count({ where: { accountId: shop.id } })).toBe(0);
  });

  it("reads thresholds from the counts alone: nothing for a refusal, a degraded check or another count", () => {
    const day = {
      name: "day" as const,
      limit: 10,
      remaining: 2,
      resetMs: Date.UTC(2031, 4, 15),
      windowSeconds: 86_400,
    };
    const minute = {
      name: "minute" as const,
      limit: 10,
      remaining: 2,
      resetMs: NOW + 50_000,
      windowSeconds: 60,
    };
    const admitted = { allowed: true, at: NOW, windows: [minute, day] };
    expect(
      reachedThresholds("acc", [80, 100], admitted).map((c) => [c.window, c.threshold, c.count]),
    ).toEqual([["day", 80, 8]]);
    expect(reachedThresholds("acc", [80], { ...admitted, degraded: true })).toEqual([]);
    expect(reachedThresholds("acc", [80], { ...admitted, allowed: false })).toEqual([]);
    expect(reachedThresholds("acc", [90], admitted)).toEqual([]);
    expect(reachedThresholds("acc", [], admitted)).toEqual([]);
  });
});
