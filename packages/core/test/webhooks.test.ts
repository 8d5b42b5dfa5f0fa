/**
 * Webhooks on PostgreSQL and on the embedded PGlite (docs/contract.md section 6), with delivery running in the
 * runtime and a loopback receiver: events are written with the change (one per animal created together, one per
 * animal of a bulk status change, none when the change is rolled back or nobody subscribes), bodies are signed
 * per Standard Webhooks (checked with the `standardwebhooks` package), each attempt's request headers are logged
 * as the receiver got them, a 500 is retried with the same webhook-id until the schedule is used up, a 410 disables the endpoint, a rotation signs with both secrets,
 * replays keep the webhook-id, an endpoint that times out does not hold up another, an endpoint failing for
 * too long is disabled, and housekeeping purges messages older than 30 days with their attempts.
 */
import { loadConfig } from "@petstore/config";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseOf } from "../src/database/operations.ts";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { eventually } from "../src/testing/wait.ts";
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../src/testing/webhook-receiver.ts";
import { messageIdFloor } from "../src/webhooks/outbox.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

const TIMEOUT_MS = 1_500;

interface Body {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Verifies `r` with `secret` as a receiver would; returns the parsed body. */
const verified = (secret: string, r: ReceivedWebhook) =>
  new Webhook(secret).verify(r.body, r.headers) as Body;

describe.each(["pglite", "postgres"] as const)("webhooks on %s", (kind) => {
  let rt: Runtime;
  let database: TestDatabase | undefined;
  let receiver: WebhookReceiver;
  let categoryId: number;
  const endpoints: string[] = [];
  let paths = 0;

  /** Registers an endpoint at a path of its own on the receiver. */
  async function endpoint(eventTypes: string[]) {
    const path = `/hook-${++paths}`;
    const created = await rt.webhooks.create(
      { url: `${receiver.origin}${path}`, eventTypes: eventTypes as never, description: "" },
      "test",
    );
    endpoints.push(created.id);
    return { ...created, path, at: (r: ReceivedWebhook) => r.path === path };
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_webhooks");
    rt = await openRuntime({
      config: loadConfig({
        ...database.env,
        LOG_LEVEL: "silent",
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
        WEBHOOKS_RETRY_SCHEDULE: "150ms,150ms",
        WEBHOOKS_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOKS_POLL_INTERVAL_MS: "100",
        WEBHOOKS_CONCURRENCY: "8",
      }),
      logger: createLogger("silent"),
    });
    receiver = await startWebhookReceiver();
    categoryId = (await rt.categories.create("Webhook dogs", "test")).id;
    rt.webhooks.start();
  });
  afterEach(async () => {
    receiver.respond(() => ({ status: 204 }));
    for (const id of endpoints.splice(0)) await rt.webhooks.remove(id, "test");
  });
  afterAll(async () => {
    await rt?.close();
    await receiver?.close();
    await database?.remove();
  });

  it("writes one pet.created event per animal created together, with the rows, and delivers each signed", async () => {
    const hook = await endpoint(["pet.created"]);
    // One event-loop turn: one INSERT statement for all of them (batched-insert.ts); the unknown category fails alone.
    const results = await Promise.allSettled([
      rt.pets.create({ name: "Ada", categoryId }),
      rt.pets.create({ name: "Bo", categoryId, status: "available" }),
      rt.pets.create({ name: "Nope", categoryId: 999_999 }),
      rt.pets.create({ name: "Cy", categoryId, status: "sold" }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    const animals = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const got = await receiver.waitFor(hook.at, 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter(hook.at)).toHaveLength(3);
    const bodies = got.map((r) => verified(hook.secret, r));
    expect(bodies.map((b) => b.type)).toEqual(["pet.created", "pet.created", "pet.created"]);
    const byId = (a: { id?: unknown }, b: { id?: unknown }) => Number(a.id) - Number(b.id);
    expect(bodies.map((b) => b.data).sort(byId)).toEqual(animals.sort(byId));
    for (const [i, r] of got.entries()) {
      expect(r.method).toBe("POST");
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["user-agent"]).toMatch(/^PetStore-Webhooks\//);
      expect(r.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
      expect(Math.abs(Number(r.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
      expect(Date.parse(bodies[i]?.timestamp ?? "")).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(3);
    // A tampered body does not verify.
    const first = got[0] as ReceivedWebhook;
    expect(() =>
      new Webhook(hook.secret).verify(first.body.replace("pet.created", "pet.deleted"), first.headers),
    ).toThrow();
  });

  it("writes the event of an idempotent createPet in its transaction, once: a replayed request sends nothing", async () => {
    const hook = await endpoint(["pet.created"]);
    const { id: apiKeyId } = await rt.apiKeys.create({ name: "idempotent", plan: "free" }, "test");
    const input = { name: "Once", categoryId };
    const create = () =>
      rt.idempotency.run({ apiKeyId, key: `once-${kind}`, body: input }, async (tx) => {
        const animal = await rt.pets.create(input, undefined, tx);
        return { status: 201, body: JSON.stringify(animal), headers: {} };
      });
    const first = await create();
    const again = await create();
    expect(again).toMatchObject({ replayed: true, response: first.response });
    const [got] = await receiver.waitFor(hook.at);
    expect(verified(hook.secret, got as ReceivedWebhook).data).toEqual(JSON.parse(first.response.body));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter(hook.at)).toHaveLength(1);
  });

  it("stores no event when nobody subscribes to its type, and none for a change that is rolled back", async () => {
    const { prisma } = databaseOf(rt);
    await endpoint(["category.deleted"]);
    const before = await prisma.webhookEvent.count();
    await rt.pets.create({ name: "Quiet", categoryId });
    expect(await prisma.webhookEvent.count()).toBe(before);
    await endpoint(["pet.updated", "category.created"]);
    const pet = await rt.pets.create({ name: "Rolled", categoryId }, "test");
    // A category that does not exist: the update fails, and its event is not committed either.
    await expect(
      rt.pets.update({ id: pet.id, categoryId: 999_999, status: "sold" }, "test"),
    ).rejects.toThrow();
    await expect(rt.categories.create("Webhook dogs", "test")).rejects.toThrow();
    expect(await prisma.webhookEvent.count()).toBe(before);
  });

  it("sends pet.updated (with the fields before), one per animal of a bulk change, pet.deleted and category events", async () => {
    const hook = await endpoint([
      "pet.updated",
      "pet.deleted",
      "category.created",
      "category.updated",
      "category.deleted",
    ]);
    const a = await rt.pets.create({ name: "Rex", categoryId, status: "available" }, "test");
    const b = await rt.pets.create({ name: "Max", categoryId }, "test");
    const c = await rt.pets.create({ name: "Sam", categoryId, status: "sold" }, "test");
    await rt.pets.update({ id: a.id, name: "Rexy" }, "test");
    // c is sold already: only a and b change, so two events.
    expect((await rt.pets.setStatus([a.id, b.id, c.id], "sold", "test")).count).toBe(3);
    await rt.pets.remove(b.id, "test");
    const cat = await rt.categories.create("Webhook cats", "test");
    await rt.categories.rename(cat.id, "Webhook kittens", "test");
    await rt.categories.remove(cat.id, "test");
    const got = await receiver.waitFor(hook.at, 7);
    const bodies = got.map((r) => verified(hook.secret, r));
    const byType = (type: string) => bodies.filter((x) => x.type === type).map((x) => x.data);
    expect(byType("pet.updated")).toEqual(
      expect.arrayContaining([
        { id: a.id, name: "Rexy", categoryId, status: "available", previous: { name: "Rex" } },
        { id: a.id, name: "Rexy", categoryId, status: "sold", previous: { status: "available" } },
        { id: b.id, name: "Max", categoryId, status: "sold", previous: { status: null } },
      ]),
    );
    expect(byType("pet.updated")).toHaveLength(3);
    expect(byType("pet.deleted")).toEqual([{ id: b.id, name: "Max", categoryId, status: "sold" }]);
    expect(byType("category.created")).toEqual([{ id: cat.id, name: "Webhook cats" }]);
    expect(byType("category.updated")).toEqual([
      { id: cat.id, name: "Webhook kittens", previous: { name: "Webhook cats" } },
    ]);
    expect(byType("category.deleted")).toEqual([{ id: cat.id, name: "Webhook kittens" }]);
  });

  it("retries a 500 with the same webhook-id until it succeeds, and logs every attempt", async () => {
    const hook = await endpoint(["pet.created"]);
    // A NUL in the answer is kept out of the log (PostgreSQL text cannot hold it) rather than failing the write.
    let calls = 0;
    receiver.respond((r) =>
      hook.at(r) && ++calls === 1 ? { status: 500, body: "not\u0000now" } : { status: 204 },
    );
    await rt.pets.create({ name: "Retry", categoryId });
    const [first, second] = await receiver.waitFor(hook.at, 2);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    expect(second?.body).toBe(first?.body);
    verified(hook.secret, second as ReceivedWebhook);
    const log = await eventually(async () => {
      const page = await rt.webhooks.deliveryLog({ endpointId: hook.id, page: 1, pageSize: 10 });
      expect(page.total).toBe(2);
      return page;
    });
    expect(log.rows.map((a) => [a.number, a.succeeded, a.status, a.responseExcerpt])).toEqual([
      [2, true, 204, ""],
      [1, false, 500, "not\uFFFDnow"],
    ]);
    const failed = await rt.webhooks.deliveryLog({
      endpointId: hook.id,
      outcome: "failed",
      page: 1,
      pageSize: 10,
    });
    expect(failed.rows.map((a) => a.number)).toEqual([1]);
    const message = await rt.webhooks.message(first?.headers["webhook-id"] as string);
    expect(message.body).toBe(first?.body);
    expect(message.deliveries).toMatchObject([{ endpointId: hook.id, state: "succeeded", attempts: 2 }]);
  });

  it("logs each attempt's request headers exactly as the receiver got them, and none when nothing was sent", async () => {
    const hook = await endpoint(["pet.created"]);
    let calls = 0;
    receiver.respond((r) => (hook.at(r) && ++calls === 1 ? { status: 500 } : { status: 204 }));
    await rt.pets.create({ name: "Headers", categoryId });
    const got = await receiver.waitFor(hook.at, 2);
    const log = await eventually(async () => {
      const page = await rt.webhooks.deliveryLog({ endpointId: hook.id, page: 1, pageSize: 10 });
      expect(page.total).toBe(2);
      return page;
    });
    // `connection` is the transport's, written by Node with the request's first bytes; everything else is the log's.
    const asReceived = got.map(({ headers: { connection: _, ...rest } }) => rest);
    const logged = log.rows.map((a) => a.requestHeaders).reverse();
    expect(logged).toEqual(asReceived);
    expect(Object.keys(logged[0] ?? {}).sort()).toEqual([
      "content-length",
      "content-type",
      "host",
      "user-agent",
      "webhook-id",
      "webhook-signature",
      "webhook-timestamp",
    ]);
    const message = await rt.webhooks.message(got[0]?.headers["webhook-id"] as string);
    expect(message.deliveries[0]?.attemptLog.map((a) => a.requestHeaders).reverse()).toEqual(asReceived);

    // A refused connection sent nothing: its attempt has no headers.
    const closed = await rt.webhooks.create(
      { url: "http://127.0.0.1:9/closed", eventTypes: ["pet.created"], description: "" },
      "test",
    );
    endpoints.push(closed.id);
    const { attempt } = await rt.webhooks.sendTest(closed.id, "test");
    expect(attempt?.error).toBe("connection refused");
    expect(attempt?.requestHeaders).toBeUndefined();
    const refused = await rt.webhooks.deliveryLog({ endpointId: closed.id, page: 1, pageSize: 1 });
    expect(refused.rows[0]).toMatchObject({ error: "connection refused", requestHeaders: null });
  });

  it("gives up when the schedule is used up, and a replay sends the message again with the same webhook-id", async () => {
    const hook = await endpoint(["pet.created"]);
    receiver.respond((r) => (hook.at(r) ? { status: 503, body: "x".repeat(5_000) } : { status: 204 }));
    await rt.pets.create({ name: "Doomed", categoryId });
    const tries = await receiver.waitFor(hook.at, 3);
    const id = tries[0]?.headers["webhook-id"] as string;
    const message = await eventually(async () => {
      const m = await rt.webhooks.message(id);
      expect(m.deliveries[0]?.state).toBe("failed");
      return m;
    });
    expect(message.deliveries[0]?.attemptLog.map((a) => a.status)).toEqual([503, 503, 503]);
    expect(message.deliveries[0]?.attemptLog[0]?.responseExcerpt).toHaveLength(1024);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received.filter(hook.at)).toHaveLength(3);

    receiver.respond(() => ({ status: 200 }));
    expect(await rt.webhooks.replayMessage({ messageId: id }, "test")).toBe(1);
    const [replayed] = await receiver.waitFor((r) => hook.at(r) && r.headers["webhook-id"] === id, 4);
    expect(replayed?.headers["webhook-id"]).toBe(id);
    await eventually(async () =>
      expect((await rt.webhooks.message(id)).deliveries[0]?.state).toBe("succeeded"),
    );
    // A range replay of failed deliveries finds none now; of everything, finds this one (the range is of the times
    // messages were written, which their ids begin with).
    const writtenAt = Number.parseInt(id.slice(4, 16), 16);
    const since = new Date(writtenAt).toISOString();
    const until = new Date(writtenAt + 1).toISOString();
    expect(
      await rt.webhooks.replayRange({ endpointId: hook.id, since, until, failedOnly: true }, "test"),
    ).toBe(0);
    expect(
      await rt.webhooks.replayRange({ endpointId: hook.id, since, until, failedOnly: false }, "test"),
    ).toBe(1);
    await receiver.waitFor((r) => hook.at(r) && r.headers["webhook-id"] === id, 5);
    const audit = await rt.auditLog.list({
      entityType: "webhookEndpoint",
      entityId: hook.id,
      page: 1,
      pageSize: 10,
    });
    expect(audit.rows.map((e) => e.action)).toEqual(
      expect.arrayContaining(["webhookEndpoint.create", "webhookEndpoint.replay"]),
    );
  });

  it("disables an endpoint that answers 410 at once, audited, and sends it nothing more", async () => {
    const hook = await endpoint(["pet.created"]);
    receiver.respond((r) => (hook.at(r) ? { status: 410 } : { status: 204 }));
    await rt.pets.create({ name: "Gone", categoryId });
    await receiver.waitFor(hook.at);
    const view = await eventually(async () => {
      const v = await rt.webhooks.get(hook.id);
      expect(v.enabled).toBe(false);
      return v;
    });
    expect(view.disabledReason).toMatch(/410 Gone/);
    await rt.pets.create({ name: "Unheard", categoryId });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter(hook.at)).toHaveLength(1);
    const audit = await rt.auditLog.list({
      entityType: "webhookEndpoint",
      entityId: hook.id,
      page: 1,
      pageSize: 10,
    });
    expect(audit.rows[0]).toMatchObject({ action: "webhookEndpoint.disable", actor: "system" });
    await expect(
      rt.webhooks.replayRange(
        { endpointId: hook.id, since: new Date(0).toISOString(), failedOnly: false },
        "test",
      ),
    ).rejects.toMatchObject({ code: "conflict" });
  });

  it("disables an endpoint whose attempts have all failed for longer than the limit", async () => {
    const hook = await endpoint(["pet.created"]);
    await databaseOf(rt).prisma.webhookEndpoint.update({
      where: { id: hook.id },
      data: { failingSince: new Date(Date.now() - 121 * 3_600_000) },
    });
    receiver.respond((r) => (hook.at(r) ? { status: 500 } : { status: 204 }));
    await rt.pets.create({ name: "Long outage", categoryId });
    const view = await eventually(async () => {
      const v = await rt.webhooks.get(hook.id);
      expect(v.enabled).toBe(false);
      return v;
    });
    expect(view.disabledReason).toMatch(/^Every attempt failed since/);
  });

  it("signs with the old and the new secret for 24 hours after a rotation", async () => {
    const hook = await endpoint(["pet.created"]);
    const rotated = await rt.webhooks.rotate(hook.id, "test");
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(hook.secret);
    await rt.pets.create({ name: "Rotated", categoryId });
    const [got] = await receiver.waitFor(hook.at);
    expect(got?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verified(rotated.secret, got as ReceivedWebhook).type).toBe("pet.created");
    expect(verified(hook.secret, got as ReceivedWebhook).type).toBe("pet.created");
    expect((await rt.webhooks.get(hook.id)).previousSecretExpiresAt).not.toBeNull();
  });

  it("sends a test message on demand and reports the attempt", async () => {
    const hook = await endpoint(["category.created"]);
    const { messageId, attempt } = await rt.webhooks.sendTest(hook.id, "test");
    expect(attempt).toMatchObject({ outcome: "succeeded", status: 204 });
    const [got] = receiver.received.filter(hook.at);
    expect(got?.headers["webhook-id"]).toBe(messageId);
    expect(verified(hook.secret, got as ReceivedWebhook)).toMatchObject({
      type: "webhook.test",
      data: { endpointId: hook.id },
    });
  });

  it("sends an example of any event type to its endpoint alone, never to the type's subscribers, also on replays", async () => {
    const target = await endpoint(["category.created"]);
    const subscriber = await endpoint(["pet.updated"]);
    const since = new Date(Date.now() - 1_000).toISOString();
    const { messageId, attempt } = await rt.webhooks.sendTest(target.id, "test", "pet.updated");
    expect(attempt).toMatchObject({ outcome: "succeeded", status: 204 });
    const [got] = receiver.received.filter(target.at);
    expect(got?.headers["webhook-id"]).toBe(messageId);
    expect(verified(target.secret, got as ReceivedWebhook)).toMatchObject({
      type: "pet.updated",
      data: {
        id: 0,
        name: "Example animal",
        categoryId: 0,
        status: "available",
        previous: { status: "pending" },
      },
    });
    // The subscriber of pet.updated gets it neither from a replay to every endpoint nor from its range replay.
    expect(await rt.webhooks.replayMessage({ messageId }, "test")).toBe(1);
    expect(
      await rt.webhooks.replayRange({ endpointId: subscriber.id, since, failedOnly: false }, "test"),
    ).toBe(0);
    await expect(
      rt.webhooks.replayMessage({ messageId, endpointId: subscriber.id }, "test"),
    ).rejects.toMatchObject({ code: "validation_failed" });
    await receiver.waitFor((r) => target.at(r) && r.headers["webhook-id"] === messageId, 2);
    expect(receiver.received.filter(subscriber.at)).toEqual([]);
  });

  it("replays a message only to endpoints subscribed to its type (a test message to its own endpoint)", async () => {
    const pets = await endpoint(["pet.created"]);
    const categories = await endpoint(["category.created"]);
    await rt.pets.create({ name: "Subscribed", categoryId });
    const [got] = await receiver.waitFor(pets.at);
    const id = got?.headers["webhook-id"] as string;
    const refused = await rt.webhooks
      .replayMessage({ messageId: id, endpointId: categories.id }, "test")
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: "validation_failed",
      message: expect.stringMatching(/not subscribed to pet\.created/),
      details: [{ path: "endpointId", message: expect.stringMatching(/not subscribed to pet\.created/) }],
    });
    const [delivered] = await eventually(async () => {
      const { deliveries } = await rt.webhooks.message(id);
      expect(deliveries[0]?.state).toBe("succeeded");
      return deliveries;
    });
    expect(delivered?.endpointId).toBe(pets.id);
    expect((await rt.webhooks.message(id)).deliveries).toHaveLength(1);
    // The replay to the subscribed endpoint fails, for the range replay of failed deliveries below.
    receiver.respond((r) => (pets.at(r) ? { status: 500 } : { status: 204 }));
    expect(await rt.webhooks.replayMessage({ messageId: id, endpointId: pets.id }, "test")).toBe(1);
    await eventually(async () => expect((await rt.webhooks.message(id)).deliveries[0]?.state).toBe("failed"));

    const test = await rt.webhooks.sendTest(categories.id, "test");
    await expect(
      rt.webhooks.replayMessage({ messageId: test.messageId, endpointId: pets.id }, "test"),
    ).rejects.toMatchObject({ code: "validation_failed" });
    expect(
      await rt.webhooks.replayMessage({ messageId: test.messageId, endpointId: categories.id }, "test"),
    ).toBe(1);

    // An endpoint that no longer subscribes gets nothing from a replay to every endpoint, nor from a range.
    await rt.webhooks.update({ id: pets.id, eventTypes: ["category.created"] }, "test");
    expect(await rt.webhooks.replayMessage({ messageId: id }, "test")).toBe(0);
    const writtenAt = Number.parseInt(id.slice(4, 16), 16);
    const range = { endpointId: pets.id, since: new Date(writtenAt).toISOString() };
    expect(await rt.webhooks.replayRange({ ...range, failedOnly: false }, "test")).toBe(0);
    expect(await rt.webhooks.replayRange({ ...range, failedOnly: true }, "test")).toBe(0);
    expect(receiver.received.filter(categories.at).map((r) => r.headers["webhook-id"])).not.toContain(id);
  });

  it("keeps delivering to other endpoints while one times out", async () => {
    const slow = await endpoint(["category.created"]);
    const fast = await endpoint(["category.created"]);
    receiver.respond((r) => (slow.at(r) ? { status: 204, delayMs: TIMEOUT_MS * 3 } : { status: 204 }));
    for (let i = 0; i < 12; i++) await rt.categories.create(`Timeout test ${kind} ${i}`, "test");
    const fastGot = await receiver.waitFor(fast.at, 12);
    // Every message reached the fast endpoint before the first attempt to the slow one had even timed out.
    const firstSlowTimeout = await eventually(async () => {
      const log = await rt.webhooks.deliveryLog({ endpointId: slow.id, page: 1, pageSize: 100 });
      expect(log.total).toBeGreaterThan(0);
      return Math.min(...log.rows.map((a) => Date.parse(a.startedAt) + a.durationMs));
    }, TIMEOUT_MS * 4);
    expect(Math.max(...fastGot.map((r) => r.receivedAt))).toBeLessThan(firstSlowTimeout);
    const slowLog = await rt.webhooks.deliveryLog({ endpointId: slow.id, page: 1, pageSize: 100 });
    expect(slowLog.rows[0]?.error).toMatch(/no answer within 1.5 s/);
  });

  it("purges messages older than 30 days with their deliveries and attempts", async () => {
    const { prisma } = databaseOf(rt);
    const hook = await endpoint(["pet.created"]);
    await rt.pets.create({ name: "Kept", categoryId });
    await receiver.waitFor(hook.at);
    const writtenAt = new Date(Date.now() - 31 * 86_400_000);
    const old = await prisma.webhookEvent.create({
      data: {
        id: `${messageIdFloor(writtenAt)}${"0".repeat(20)}`,
        type: "pet.created",
        data: JSON.stringify({ id: 1 }),
        occurredAt: writtenAt,
      },
    });
    await prisma.webhookDelivery.create({
      data: { eventId: old.id, endpointId: hook.id, state: "succeeded", nextAttemptAt: null },
    });
    await prisma.webhookAttempt.create({
      data: {
        endpointId: hook.id,
        eventId: old.id,
        number: 1,
        startedAt: old.occurredAt,
        durationMs: 5,
        succeeded: true,
        status: 200,
      },
    });
    const kept = await prisma.webhookEvent.count();
    const report = await rt.housekeeping.run();
    expect(report).toMatchObject({ skipped: false, deleted: { webhookMessages: 1 } });
    expect(await prisma.webhookEvent.count()).toBe(kept - 1);
    expect(await prisma.webhookDelivery.count({ where: { eventId: old.id } })).toBe(0);
    expect(await prisma.webhookAttempt.count({ where: { eventId: old.id } })).toBe(0);
  });
});
