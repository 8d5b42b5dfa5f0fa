/**
 * POST /v1/store/orders/{orderId}/complete and /cancel (completeOrder, cancelOrder; docs/contract.md section 1):
 * completing sells the animal, cancelling releases it; repeating the call that closed the order is answered as the
 * first; any other closed order, a lapsed hold included, is 409 naming its state; no body or `{}` only; another
 * owner's order is 404 and stays as it is; the events go to the order's account's endpoints and the store's. The
 * clock is the harness's: about 2 s.
 */
import { databaseOf } from "@petstore/core/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  accountWithKeys,
  availablePets,
  closeOrder,
  type IssuedKey,
  type Order,
  placeOrder,
  statusOf,
} from "./store-support.ts";
import { expectError, useServer } from "./support.ts";

const NOW = new Date("2026-11-29T10:00:00.000Z");
const MINUTE = 60_000;

describe("completeOrder and cancelOrder (postgres)", () => {
  const t = useServer("postgres", { now: NOW });
  let shop: { id: string; keys: IssuedKey[] };
  let other: { id: string; keys: IssuedKey[] };
  const endpoints = { shop: "", other: "", store: "" };
  afterEach(() => t.s.setNow(NOW));

  /** A new order of the shop (its first key) on a new available animal. */
  const order = async (body: Record<string, unknown> = {}) => {
    const [petId = 0] = await availablePets(t);
    return (await placeOrder(t, { petId, ...body }, shop.keys[0]?.key)).body as Order;
  };

  beforeAll(async () => {
    shop = await accountWithKeys(t, "Closing Shop");
    other = await accountWithKeys(t, "Bystander Shop", 1);
    const { prisma } = databaseOf(t.s.rt);
    const eventTypes = ["order.placed", "order.completed", "order.cancelled", "order.expired"];
    for (const [name, accountId] of [
      ["shop", shop.id],
      ["other", other.id],
      ["store", null],
    ] as const)
      endpoints[name] = (
        await prisma.webhookEndpoint.create({
          data: {
            url: `https://${name}.example/hooks`,
            eventTypes,
            secret: "whsec_x",
            createdBy: "test",
            accountId,
          },
        })
      ).id;
  });

  it.each([
    ["complete", "completed", "sold"],
    ["cancel", "cancelled", "available"],
  ] as const)(
    "%s: 200 with the order %s and its animal %s; a repeat answers the same",
    async (action, status, petStatus) => {
      const placed = await order();
      t.s.setNow(new Date(NOW.getTime() + MINUTE));
      const r = await closeOrder(t, placed.id, action, shop.keys[1]?.key);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...placed, status, closedAt: new Date(NOW.getTime() + MINUTE).toISOString() });
      expect(await statusOf(t, placed.petId)).toBe(petStatus);
      t.s.setNow(new Date(NOW.getTime() + 2 * MINUTE));
      const again = await closeOrder(t, placed.id, action, shop.keys[0]?.key);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(r.body);
    },
  );

  it("refuses to cancel a completed order and to complete a cancelled one, naming the state", async () => {
    const completed = await order();
    await closeOrder(t, completed.id, "complete", shop.keys[0]?.key);
    const e = expectError(await closeOrder(t, completed.id, "cancel", shop.keys[0]?.key), 409, "conflict");
    expect(e.message).toBe(`Order ${completed.id} is completed: only a placed order can be cancelled.`);
    expect(await statusOf(t, completed.petId)).toBe("sold");
    const cancelled = await order();
    await closeOrder(t, cancelled.id, "cancel", shop.keys[0]?.key);
    expectError(await closeOrder(t, cancelled.id, "complete", shop.keys[0]?.key), 409, "conflict");
    expect(await statusOf(t, cancelled.petId)).toBe("available");
  });

  it("counts a hold that lapsed as expired, even before the sweep wrote it", async () => {
    const placed = await order({ holdMinutes: 10 });
    t.s.setNow(new Date(NOW.getTime() + 10 * MINUTE));
    const e = expectError(await closeOrder(t, placed.id, "complete", shop.keys[0]?.key), 409, "conflict");
    expect(e.message).toBe(`Order ${placed.id} is expired: only a placed order can be completed.`);
    expect(await statusOf(t, placed.petId)).toBe("available");
    const now = await t.call("getOrder", `/v1/store/orders/${placed.id}`, {
      headers: t.auth(shop.keys[0]?.key),
    });
    expect(now.body).toEqual({ ...placed, status: "expired", closedAt: placed.holdUntil });
  });

  it("takes no body, an empty one or {}, and refuses anything else", async () => {
    const placed = await order();
    const key = shop.keys[0]?.key;
    const json = { "content-type": "application/json" };
    expectError(
      await closeOrder(t, placed.id, "cancel", key, { headers: json, body: '{"reason":"x"}' }),
      400,
      "validation_failed",
    );
    expectError(
      await closeOrder(t, placed.id, "cancel", key, { headers: json, body: "{" }),
      400,
      "invalid_request",
    );
    expectError(
      await closeOrder(t, placed.id, "cancel", key, {
        headers: { "content-type": "text/plain" },
        body: "cancel",
      }),
      415,
      "unsupported_media_type",
    );
    expect(await statusOf(t, placed.petId)).toBe("pending");
    expect((await closeOrder(t, placed.id, "cancel", key, { headers: json, body: "" })).status).toBe(200);
    const second = await order();
    expect((await closeOrder(t, second.id, "complete", key, { headers: json, body: "{}" })).status).toBe(200);
  });

  it("answers another account's order 404 as a missing one, and leaves it as it is", async () => {
    const placed = await order();
    for (const action of ["complete", "cancel"] as const) {
      const e = expectError(await closeOrder(t, placed.id, action, other.keys[0]?.key), 404, "not_found");
      expect(e.message).toBe(`No order with id ${placed.id}.`);
      expect(await closeOrder(t, 999_999_999, action, other.keys[0]?.key)).toMatchObject({ status: 404 });
    }
    expect(await statusOf(t, placed.petId)).toBe("pending");
  });

  it("sends the order's events to its account's endpoints and the store's, never another account's", async () => {
    const placed = await order();
    await closeOrder(t, placed.id, "complete", shop.keys[0]?.key);
    const { prisma } = databaseOf(t.s.rt);
    const events = (await prisma.webhookEvent.findMany({ where: { type: { startsWith: "order." } } })).filter(
      (e) => (JSON.parse(e.data) as Order).id === placed.id,
    );
    expect(events.map((e) => e.type).sort()).toEqual(["order.completed", "order.placed"]);
    for (const event of events) {
      const to = await prisma.webhookDelivery.findMany({ where: { eventId: event.id } });
      expect(to.map((d) => d.endpointId).sort()).toEqual([endpoints.shop, endpoints.store].sort());
    }
    const completed = events.find((e) => e.type === "order.completed");
    expect(JSON.parse(completed?.data ?? "{}")).toEqual({
      ...placed,
      status: "completed",
      closedAt: NOW.toISOString(),
    });
  });
});
