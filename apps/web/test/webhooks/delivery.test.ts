/**
 * Webhook delivery over HTTP on the production server (`tsx server.ts` over the Next build; docs/contract.md
 * section 6), two instances on one PostgreSQL database, a loopback receiver verifying every message with the
 * `standardwebhooks` package as a receiver would: a createPet's 201 is followed by its signed `pet.created`; a 500
 * is retried with the same webhook-id; a 410 disables the endpoint; after a rotation each message verifies with
 * the old and the new secret; a replay re-sends with the same webhook-id; with both instances taking requests
 * every message reaches every endpoint exactly once; an endpoint that times out does not hold up another; and an
 * instance killed with SIGKILL right after a 201 delivers that event once it is started again.
 */

import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import {
  eventually,
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from "@petstore/core/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startProductionServer,
} from "../instances/production-server.ts";
import { freePort } from "../support/common.ts";

const TIMEOUT_MS = 1_500;
const POLL_MS = 200;
const RETRY_MS = 300;
/** Long enough for a delivery that should not happen to show up: a poll, a retry step and a poll again. */
const QUIET_MS = 2 * POLL_MS + RETRY_MS;
/** Waits `QUIET_MS` of real time (the servers are processes of their own: no clock of theirs to move). */
const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

interface Body {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

const verified = (secret: string, r: ReceivedWebhook) =>
  new Webhook(secret).verify(r.body, r.headers) as Body;

describe("webhooks from the production server", () => {
  let db: PreparedDatabase;
  /** A runtime on the database that may register loopback endpoints (as the servers may call them). */
  let rt: Runtime;
  let receiver: WebhookReceiver;
  let env: Record<string, string>;
  let key: string;
  let a: ProductionServer;
  let b: ProductionServer | undefined;
  const servers: ProductionServer[] = [];
  const endpoints: string[] = [];
  let paths = 0;

  async function endpoint(eventTypes = ["pet.created"]) {
    const path = `/hook-${++paths}`;
    const created = await rt.webhooks.create(
      { url: `${receiver.origin}${path}`, eventTypes: eventTypes as never, description: "" },
      "test",
    );
    endpoints.push(created.id);
    return { ...created, at: (r: ReceivedWebhook) => r.path === path };
  }

  async function createPet(server: ProductionServer, name: string) {
    const response = await fetch(`${server.baseUrl}/v1/pets`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name, categoryId: 1, status: "available" }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: number; name: string; categoryId: number; status?: string };
  }

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    [db, receiver] = await Promise.all([prepareDatabase("petstore_webhooks"), startWebhookReceiver()]);
    rt = await openRuntime({
      config: loadConfig({
        DATABASE_URL: db.url,
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
        LOG_LEVEL: "silent",
      }),
      logger: createLogger("silent"),
    });
    key = (
      await rt.apiKeys.create(
        { name: "webhooks", plan: "enterprise", perMinute: 100_000, perDay: 1_000_000 },
        "test",
      )
    ).key;
    env = {
      DATABASE_URL: db.url,
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOKS_RETRY_SCHEDULE: `${RETRY_MS}ms,${RETRY_MS}ms`,
      WEBHOOKS_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOKS_POLL_INTERVAL_MS: String(POLL_MS),
      WEBHOOKS_CONCURRENCY: "8",
      // Events come from /v1 and delivery runs in every role: no dashboard process to start.
      PETSTORE_SERVE: "api",
    };
    const started = await Promise.allSettled([
      startProductionServer(await freePort(), env),
      startProductionServer(await freePort(), env),
    ]);
    for (const s of started) if (s.status === "fulfilled") servers.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    [a, b] = servers as [ProductionServer, ProductionServer];
  }, 600_000);

  afterEach(async () => {
    receiver.respond(() => ({ status: 204 }));
    for (const id of endpoints.splice(0)) await rt.webhooks.remove(id, "test");
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await receiver?.close();
    await rt?.close();
    await db?.drop();
  });

  it("follows a createPet's 201 with a signed pet.created carrying the same animal", async () => {
    const hook = await endpoint();
    const pet = await createPet(a, "Signed");
    const [got] = await receiver.waitFor(hook.at);
    const body = verified(hook.secret, got as ReceivedWebhook);
    expect(body).toEqual({ type: "pet.created", timestamp: expect.any(String), data: pet });
    expect(got?.headers["content-type"]).toBe("application/json");
    expect(got?.headers["user-agent"]).toMatch(/^PetStore-Webhooks\/1\.0/);
    expect(got?.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
  });

  it("retries a 500 with the same webhook-id and body", async () => {
    const hook = await endpoint();
    let calls = 0;
    receiver.respond((r) => (hook.at(r) && ++calls === 1 ? { status: 500 } : { status: 204 }));
    await createPet(a, "Retried");
    const [first, second] = await receiver.waitFor(hook.at, 2);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    expect(second?.body).toBe(first?.body);
    expect(verified(hook.secret, second as ReceivedWebhook).type).toBe("pet.created");
    await eventually(async () => {
      const log = await rt.webhooks.deliveryLog({ endpointId: hook.id, page: 1, pageSize: 10 });
      expect(log.rows.map((r) => [r.number, r.status])).toEqual([
        [2, 204],
        [1, 500],
      ]);
    }, 5_000);
  });

  it("disables an endpoint that answers 410, and sends it nothing more", async () => {
    const hook = await endpoint();
    receiver.respond((r) => (hook.at(r) ? { status: 410 } : { status: 204 }));
    await createPet(a, "Gone");
    await receiver.waitFor(hook.at);
    await eventually(async () => {
      expect(await rt.webhooks.get(hook.id)).toMatchObject({
        enabled: false,
        disabledReason: expect.stringMatching(/410/),
      });
    }, 5_000);
    await createPet(a, "Unheard");
    await quiet();
    expect(receiver.received.filter(hook.at)).toHaveLength(1);
  });

  it("signs with both secrets after a rotation, and replays with the same webhook-id", async () => {
    const hook = await endpoint();
    const { secret } = await rt.webhooks.rotate(hook.id, "test");
    await createPet(b ?? a, "Rotated");
    const [got] = await receiver.waitFor(hook.at);
    expect(got?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verified(secret, got as ReceivedWebhook).type).toBe("pet.created");
    expect(verified(hook.secret, got as ReceivedWebhook).type).toBe("pet.created");

    const id = got?.headers["webhook-id"] as string;
    // A replay queues the message again once its attempt is recorded (one in flight is left alone).
    await eventually(async () => {
      expect((await rt.webhooks.message(id)).deliveries[0]?.state).toBe("succeeded");
    }, 5_000);
    expect(await rt.webhooks.replayMessage({ messageId: id }, "test")).toBe(1);
    const [, again] = await receiver.waitFor(hook.at, 2);
    expect(again?.headers["webhook-id"]).toBe(id);
    expect(again?.body).toBe(got?.body);
    verified(secret, again as ReceivedWebhook);
  });

  it("delivers every message to every endpoint exactly once with two instances taking the requests", async () => {
    const hooks = [await endpoint(), await endpoint()];
    const pets = await Promise.all(
      Array.from({ length: 30 }, (_, i) => createPet(i % 2 ? (b ?? a) : a, `Pair ${i}`)),
    );
    for (const hook of hooks) {
      const got = await receiver.waitFor(hook.at, 30, 20_000);
      const bodies = got.map((r) => verified(hook.secret, r));
      expect(bodies.map((x) => x.data.id).sort()).toEqual(pets.map((p) => p.id).sort());
    }
    await quiet();
    for (const hook of hooks) {
      const ids = receiver.received.filter(hook.at).map((r) => r.headers["webhook-id"]);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
    }
  });

  it("keeps delivering to an endpoint while another one times out", async () => {
    const slow = await endpoint();
    const fast = await endpoint();
    receiver.respond((r) => (slow.at(r) ? { status: 204, delayMs: TIMEOUT_MS * 4 } : { status: 204 }));
    for (let i = 0; i < 10; i++) await createPet(a, `Timeout ${i}`);
    const fastGot = await receiver.waitFor(fast.at, 10);
    const firstSlowTimeout = await new Promise<number>((resolve, reject) => {
      const deadline = Date.now() + TIMEOUT_MS * 6;
      const look = async () => {
        const log = await rt.webhooks.deliveryLog({ endpointId: slow.id, page: 1, pageSize: 100 });
        if (log.total > 0)
          return resolve(Math.min(...log.rows.map((x) => Date.parse(x.startedAt) + x.durationMs)));
        if (Date.now() > deadline) return reject(new Error("no attempt to the slow endpoint was logged"));
        setTimeout(look, 100);
      };
      void look();
    });
    // Every message reached the fast endpoint before the first attempt to the slow one had timed out.
    expect(Math.max(...fastGot.map((r) => r.receivedAt))).toBeLessThan(firstSlowTimeout);
  });

  it("delivers the event of a 201 after the instance is killed (SIGKILL) and started again", async () => {
    // One instance only, so that no other delivers it meanwhile.
    await b?.stop();
    b = undefined;
    const hook = await endpoint();
    // Whatever reaches the receiver before the kill gets no answer in time: only a later attempt can succeed.
    receiver.respond((r) => (hook.at(r) ? { status: 204, delayMs: 60_000 } : { status: 204 }));
    const pet = await createPet(a, "Survivor");
    process.kill(-(a.pid as number), "SIGKILL");
    await eventually(async () => {
      expect(await fetch(`${a.baseUrl}/healthz`).catch(() => undefined)).toBeUndefined();
    }, 5_000);
    const killedAt = performance.timeOrigin + performance.now();
    receiver.respond(() => ({ status: 204 }));
    const restarted = await startProductionServer(await freePort(), env);
    servers.push(restarted);
    const [got] = await receiver.waitFor((r) => hook.at(r) && r.receivedAt > killedAt, 1, 30_000);
    expect(verified(hook.secret, got as ReceivedWebhook)).toMatchObject({ type: "pet.created", data: pet });
    await eventually(async () => {
      const message = await rt.webhooks.message(got?.headers["webhook-id"] as string);
      expect(message.deliveries[0]?.state).toBe("succeeded");
    }, 10_000);
  });
});
