/**
 * POST /v1/store/orders (createOrder; docs/contract.md section 1, "POST /v1/store/orders (createOrder)"): 201
 * with Location and the Order, the animal held `pending` for the hold (ORDER_HOLD_MINUTES or `holdMinutes`); an
 * animal in any other state is 409 naming it, an unknown one 400 on `petId`; of concurrent orders for one animal
 * exactly one is placed; a lapsed hold on the animal is expired first; createPet's body gate and Idempotency-Key
 * rules. The clock is the harness's (fixed): about 2 s.
 */
import { databaseOf } from "@petstore/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  availablePets,
  closeOrder,
  type Order,
  orderCount,
  placeOrder,
  statusOf,
  storeKey,
} from "./store-support.ts";
import { expectError, seedPets, useServer } from "./support.ts";

const NOW = new Date("2026-11-29T10:00:00.000Z");
const MINUTE = 60_000;

describe("createOrder (postgres)", () => {
  const t = useServer("postgres", { now: NOW });
  afterEach(() => t.s.setNow(NOW));

  it("places an order of an available animal: 201, Location, the Order, and the animal held pending", async () => {
    const [petId = 0] = await availablePets(t);
    const r = await placeOrder(t, { petId });
    expect(r.status).toBe(201);
    const order = r.body as Order;
    expect(order).toEqual({
      id: expect.any(Number),
      petId,
      status: "placed",
      createdAt: NOW.toISOString(),
      holdUntil: new Date(NOW.getTime() + 30 * MINUTE).toISOString(),
      closedAt: null,
    });
    expect(r.headers.get("location")).toBe(`https://api.test.example/v1/store/orders/${order.id}`);
    expect(r.headers.get("idempotent-replayed")).toBeNull();
    const pet = await t.call("getPet", `/v1/pets/${petId}`, { headers: t.auth() });
    expect((pet.body as { status: string }).status).toBe("pending");
    const fetched = await t.call("getOrder", `/v1/store/orders/${order.id}`, { headers: t.auth() });
    expect(fetched.body).toEqual(order);
  });

  it("holds the animal holdMinutes when the order asks", async () => {
    const [petId = 0] = await availablePets(t);
    const order = (await placeOrder(t, { petId, holdMinutes: 1440 })).body as Order;
    expect(order.holdUntil).toBe(new Date(NOW.getTime() + 1440 * MINUTE).toISOString());
  });

  it.each([
    ["pending", "is pending"],
    ["sold", "is sold"],
    [null, "has no status"],
  ] as const)(
    "refuses an animal whose status is %s: 409 naming it, nothing placed",
    async (status, state) => {
      const [petId = 0] = await seedPets(t.s, 1, () => ({ status }));
      const before = await orderCount(t);
      const e = expectError(await placeOrder(t, { petId }), 409, "conflict");
      expect(e.message).toBe(`Animal ${petId} ${state}: only an available animal can be ordered.`);
      expect(await orderCount(t)).toBe(before);
      expect(await statusOf(t, petId)).toBe(status);
    },
  );

  it("refuses an animal that another order holds, and answers an unknown animal 400 on petId", async () => {
    const [petId = 0] = await availablePets(t);
    expect((await placeOrder(t, { petId })).status).toBe(201);
    expectError(await placeOrder(t, { petId }), 409, "conflict");
    const e = expectError(await placeOrder(t, { petId: 999_999_999 }), 400, "validation_failed");
    expect(e.details).toEqual([{ path: "petId", message: "no animal with id 999999999" }]);
  });

  it("places exactly one of 30 concurrent orders for one animal", async () => {
    const [petId = 0] = await availablePets(t);
    const keys = await Promise.all([storeKey(t, "racer a"), storeKey(t, "racer b")]);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => placeOrder(t, { petId }, keys[i % 2]?.key)),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of answers.filter((r) => r.status !== 201)) expectError(r, 409, "conflict");
    expect(
      await databaseOf(t.s.rt).prisma.order.count({ where: { petId: BigInt(petId), status: "placed" } }),
    ).toBe(1);
  });

  it("expires a lapsed hold on the animal first, and places the new order", async () => {
    const [petId = 0] = await availablePets(t);
    const first = (await placeOrder(t, { petId, holdMinutes: 5 })).body as Order;
    t.s.setNow(new Date(NOW.getTime() + 5 * MINUTE));
    const second = await placeOrder(t, { petId });
    expect(second.status).toBe(201);
    const lapsed = await t.call("getOrder", `/v1/store/orders/${first.id}`, { headers: t.auth() });
    expect(lapsed.body).toEqual({ ...first, status: "expired", closedAt: first.holdUntil });
  });

  describe("body gate", () => {
    it("refuses what is not a JSON object with createPet's statuses, placing nothing", async () => {
      const [petId = 0] = await availablePets(t);
      const before = await orderCount(t);
      expectError(await placeOrder(t, `{"petId":${petId}`), 400, "invalid_request");
      expectError(await placeOrder(t, `[${petId}]`), 400, "invalid_request");
      expectError(
        await placeOrder(t, JSON.stringify({ petId }), undefined, { "content-type": "text/plain" }),
        415,
        "unsupported_media_type",
      );
      expectError(await placeOrder(t, { petId, note: "x".repeat(17_000) }), 413, "payload_too_large");
      const strict = expectError(await placeOrder(t, { petId, quantity: 1 }), 400, "validation_failed");
      expect(strict.details).toEqual([{ path: "quantity", message: "unknown property: quantity" }]);
      expect(await orderCount(t)).toBe(before);
    });

    it("requires a key before looking at the body", async () => {
      const r = await t.call("createOrder", "/v1/store/orders", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "not json",
      });
      expectError(r, 401, "unauthorized");
    });
  });

  describe("Idempotency-Key", () => {
    it("replays the first answer for the same key and body, placing nothing more", async () => {
      const [petId = 0] = await availablePets(t);
      const headers = { "idempotency-key": `order-${petId}` };
      const first = await placeOrder(t, { petId }, undefined, headers);
      expect(first.status).toBe(201);
      const before = await orderCount(t);
      const retry = await placeOrder(t, { petId }, undefined, headers);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.get("location")).toBe(first.headers.get("location"));
      expect(await orderCount(t)).toBe(before);
    });

    it("answers 422 for the same key with another body, and for a key a createPet used", async () => {
      const [a = 0, b = 0] = await availablePets(t, 2);
      const headers = { "idempotency-key": `reused-${a}` };
      expect((await placeOrder(t, { petId: a }, undefined, headers)).status).toBe(201);
      expectError(await placeOrder(t, { petId: b }, undefined, headers), 422, "idempotency_key_reused");
      const petKey = { "idempotency-key": `pet-then-order-${a}` };
      expect((await t.create({ name: "Shared key", categoryId: t.s.categoryIds[0] }, petKey)).status).toBe(
        201,
      );
      expectError(await placeOrder(t, { petId: b }, undefined, petKey), 422, "idempotency_key_reused");
      expect(await statusOf(t, b)).toBe("available");
    });

    it("remembers no refusal: after a 409 the same key runs again once the animal is available", async () => {
      const [petId = 0] = await availablePets(t);
      const holder = (await placeOrder(t, { petId })).body as Order;
      const headers = { "idempotency-key": `after-conflict-${petId}` };
      expectError(await placeOrder(t, { petId }, undefined, headers), 409, "conflict");
      expect((await closeOrder(t, holder.id, "cancel")).status).toBe(200);
      const placed = await placeOrder(t, { petId }, undefined, headers);
      expect(placed.status).toBe(201);
      expect(placed.headers.get("idempotent-replayed")).toBeNull();
    });
  });
});
