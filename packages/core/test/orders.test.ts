/**
 * The store section's services on PostgreSQL and on the embedded PGlite (docs/contract.md section 1, "The store
 * section"): an order holds its animal, completing sells it and cancelling releases it, each with its events in the
 * outbox (order events only to the order's account's endpoints and the store's); a hold that lapsed is expired by
 * the sweep and by any write that touches it; an owner sees and changes its own orders only; a held animal's status
 * does not change; the inventory's counts stay exact through every change (the triggers and the fold). The clock
 * is injected: no test waits on a real one. About 3 s on each database.
 */
import { loadConfig } from "@petstore/config";
import type { Order } from "@petstore/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseOf } from "../src/database/operations.ts";
import { animalTag } from "../src/entity-tag.ts";
import { createLogger } from "../src/logger.ts";
import { foldInventory } from "../src/pets/inventory.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

const MINUTE = 60_000;

describe.each(["pglite", "postgres"] as const)("orders on %s", (kind) => {
  let rt: Runtime;
  let database: TestDatabase | undefined;
  let now = new Date("2026-11-29T10:00:00.000Z");
  let categoryId: bigint;
  const accounts: Record<"a" | "b", string> = { a: "", b: "" };
  const keys: Record<"a" | "b" | "own", string> = { a: "", b: "", own: "" };
  const endpoints: Record<"a" | "b" | "store", string> = { a: "", b: "", store: "" };

  const db = () => databaseOf(rt).prisma;
  const addPet = async (status: "available" | "pending" | "sold" | null = "available") =>
    (await db().pet.create({ data: { name: "Rex", categoryId, status } })).id;
  const statusOf = async (id: bigint) => (await db().pet.findUniqueOrThrow({ where: { id } })).status;
  const ofA = () => rt.orders.of({ accountId: accounts.a });
  const placeA = (petId: bigint, holdMinutes?: number) =>
    ofA().create({ petId: Number(petId), ...(holdMinutes ? { holdMinutes } : {}) }, { apiKeyId: keys.a });
  /** The events written for `order`, by type, with the endpoints each was queued for. */
  async function eventsOf(order: Order) {
    const events = await db().webhookEvent.findMany({ orderBy: { id: "asc" } });
    const deliveries = await db().webhookDelivery.findMany();
    return events
      .filter((e) => e.type.startsWith("order.") && (JSON.parse(e.data) as Order).id === order.id)
      .map((e) => ({
        type: e.type,
        data: JSON.parse(e.data) as Order,
        to: deliveries
          .filter((d) => d.eventId === e.id)
          .map((d) => Object.entries(endpoints).find(([, id]) => id === d.endpointId)?.[0])
          .sort(),
      }));
  }
  async function petEvents(petId: bigint) {
    return (await db().webhookEvent.findMany({ where: { type: "pet.updated" }, orderBy: { id: "asc" } }))
      .map((e) => JSON.parse(e.data) as { id: number; status?: string; previous: { status: string | null } })
      .filter((d) => d.id === Number(petId));
  }
  /** The inventory as the service reads it, checked against a count of the animals. */
  async function expectInventoryExact() {
    const counted = await db().pet.groupBy({ by: ["status"], _count: true });
    const expected = { available: 0, pending: 0, sold: 0, unset: 0 };
    for (const row of counted) expected[row.status ?? "unset"] = row._count;
    expect(await rt.pets.inventory()).toEqual(expected);
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_orders");
    rt = await openRuntime({
      config: loadConfig({ ...database.env, LOG_LEVEL: "silent", WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true" }),
      logger: createLogger("silent"),
      clock: () => now,
    });
    categoryId = (await db().category.create({ data: { name: "Dogs" } })).id;
    for (const name of ["a", "b"] as const) {
      accounts[name] = (
        await db().account.create({ data: { name: `Shop ${name}`, planName: "pro", createdBy: "test" } })
      ).id;
      keys[name] = (await rt.apiKeys.create({ name: `key ${name}`, plan: "pro" }, "test")).id;
      await db().apiKey.update({ where: { id: keys[name] }, data: { accountId: accounts[name] } });
    }
    keys.own = (await rt.apiKeys.create({ name: "own key", plan: "pro" }, "test")).id;
    const eventTypes = ["order.placed", "order.completed", "order.cancelled", "order.expired", "pet.updated"];
    for (const [name, accountId] of [
      ["a", accounts.a],
      ["b", accounts.b],
      ["store", null],
    ] as const) {
      endpoints[name] = (
        await db().webhookEndpoint.create({
          data: {
            url: `http://127.0.0.1:9/${name}`,
            eventTypes,
            secret: "whsec_x",
            createdBy: "test",
            accountId,
          },
        })
      ).id;
    }
  });

  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  it("places an order of an available animal, holding it pending, with order.placed to its account's and the store's endpoints", async () => {
    const petId = await addPet();
    const order = await placeA(petId);
    expect(order).toEqual({
      id: expect.any(Number),
      petId: Number(petId),
      status: "placed",
      createdAt: now.toISOString(),
      holdUntil: new Date(now.getTime() + 30 * MINUTE).toISOString(),
      closedAt: null,
    });
    expect(await statusOf(petId)).toBe("pending");
    expect(await eventsOf(order)).toEqual([{ type: "order.placed", data: order, to: ["a", "store"] }]);
    expect(await petEvents(petId)).toEqual([
      expect.objectContaining({ status: "pending", previous: { status: "available" } }),
    ]);
    await expectInventoryExact();
  });

  it("refuses an animal that is not available (409 naming its state) and an unknown one (400 on petId)", async () => {
    for (const status of ["pending", "sold", null] as const) {
      const petId = await addPet(status);
      await expect(placeA(petId)).rejects.toMatchObject({
        code: "conflict",
        message: `Animal ${petId} ${status ? `is ${status}` : "has no status"}: only an available animal can be ordered.`,
      });
    }
    await expect(placeA(9_999_999n)).rejects.toMatchObject({
      code: "validation_failed",
      details: [{ path: "petId", message: "no animal with id 9999999" }],
    });
  });

  it("places one order of concurrent ones for one animal", async () => {
    const petId = await addPet();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => placeA(petId)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "conflict", status: 409 });
    expect(await db().order.count({ where: { petId, status: "placed" } })).toBe(1);
  });

  it("completes an order (animal sold), answers a repeat as the first, and refuses a cancel then", async () => {
    const petId = await addPet();
    const placed = await placeA(petId);
    now = new Date(now.getTime() + MINUTE);
    const completed = await ofA().complete(placed.id);
    expect(completed).toEqual({ ...placed, status: "completed", closedAt: now.toISOString() });
    expect(await statusOf(petId)).toBe("sold");
    expect(await ofA().complete(placed.id)).toEqual(completed);
    await expect(ofA().cancel(placed.id)).rejects.toMatchObject({
      code: "conflict",
      message: `Order ${placed.id} is completed: only a placed order can be cancelled.`,
    });
    expect((await eventsOf(placed)).map((e) => [e.type, e.to])).toEqual([
      ["order.placed", ["a", "store"]],
      ["order.completed", ["a", "store"]],
    ]);
    expect((await petEvents(petId)).map((d) => [d.status, d.previous.status])).toEqual([
      ["pending", "available"],
      ["sold", "pending"],
    ]);
    await expectInventoryExact();
  });

  it("cancels an order (animal available again), audited when a person cancels it", async () => {
    const petId = await addPet();
    const placed = await placeA(petId);
    const cancelled = await rt.orders.cancel(placed.id, "user:staff@example.com");
    expect(cancelled.status).toBe("cancelled");
    expect(await statusOf(petId)).toBe("available");
    const audit = await db().auditLog.findMany({
      where: { entityType: "order", entityId: String(placed.id) },
    });
    expect(audit).toEqual([
      expect.objectContaining({ action: "order.cancel", actor: "user:staff@example.com" }),
    ]);
    // A retry by the API client is answered as the first, and is not audited again.
    expect(await ofA().cancel(placed.id)).toEqual(cancelled);
    expect(await db().auditLog.count({ where: { entityType: "order", entityId: String(placed.id) } })).toBe(
      1,
    );
  });

  it("sends an order of a key outside accounts to the store's endpoints only, and keeps it that key's", async () => {
    const petId = await addPet();
    const own = rt.orders.of({ apiKeyId: keys.own });
    const order = await own.create({ petId: Number(petId) }, { apiKeyId: keys.own });
    expect((await eventsOf(order)).map((e) => e.to)).toEqual([["store"]]);
    expect(await own.get(order.id)).toEqual(order);
    await expect(ofA().get(order.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(rt.orders.of({ apiKeyId: keys.a }).get(order.id)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("answers another account's order as not found everywhere, and lists an owner's orders only", async () => {
    const order = await placeA(await addPet());
    const ofB = rt.orders.of({ accountId: accounts.b });
    for (const call of [() => ofB.get(order.id), () => ofB.complete(order.id), () => ofB.cancel(order.id)])
      await expect(call()).rejects.toMatchObject({
        code: "not_found",
        message: `No order with id ${order.id}.`,
      });
    await expect(ofB.view(order.id)).rejects.toMatchObject({ code: "not_found" });
    expect((await ofB.list({ limit: 100 })).items).toEqual([]);
    expect((await ofB.search({ page: 1, pageSize: 20 })).rows).toEqual([]);
    expect((await ofA().get(order.id)).status).toBe("placed");
    expect((await rt.orders.get(order.id)).accountName).toBe("Shop a");
  });

  it("pages an owner's orders newest first with signed cursors of its own list and filter", async () => {
    const petId = await addPet();
    const first = await placeA(petId);
    await ofA().cancel(first.id);
    const second = await placeA(petId);
    const page = await ofA().list({ limit: 1, petId });
    expect(page.items).toEqual([second]);
    const next = await ofA().list({ limit: 1, petId, cursor: page.nextCursor });
    expect(next).toEqual({ items: [{ ...first, status: "cancelled", closedAt: expect.any(String) }] });
    await expect(ofA().list({ limit: 1, cursor: page.nextCursor })).rejects.toMatchObject({
      code: "validation_failed",
    });
    const petsCursor = (await rt.pets.list({ limit: 1 })).nextCursor;
    await expect(ofA().list({ limit: 1, cursor: petsCursor })).rejects.toMatchObject({
      code: "validation_failed",
    });
    expect((await ofA().list({ limit: 100, status: "cancelled", petId })).items.map((o) => o.id)).toEqual([
      first.id,
    ]);
  });

  it("expires a lapsed hold on the next write that touches it: completing is refused as expired", async () => {
    const petId = await addPet();
    const placed = await placeA(petId, 5);
    now = new Date(now.getTime() + 5 * MINUTE);
    await expect(ofA().complete(placed.id)).rejects.toMatchObject({
      code: "conflict",
      message: `Order ${placed.id} is expired: only a placed order can be completed.`,
    });
    expect(await ofA().get(placed.id)).toEqual({ ...placed, status: "expired", closedAt: placed.holdUntil });
    expect(await statusOf(petId)).toBe("available");
    expect((await eventsOf(placed)).map((e) => e.type)).toEqual(["order.placed", "order.expired"]);
  });

  it("expires a lapsed hold when the animal is ordered again", async () => {
    const petId = await addPet();
    const first = await placeA(petId, 1);
    now = new Date(now.getTime() + 2 * MINUTE);
    const second = await rt.orders
      .of({ accountId: accounts.b })
      .create({ petId: Number(petId) }, { apiKeyId: keys.b });
    expect(second.status).toBe("placed");
    expect((await ofA().get(first.id)).status).toBe("expired");
    expect((await eventsOf(second)).map((e) => e.to)).toEqual([["b", "store"]]);
  });

  it("sweeps lapsed holds once, whoever sweeps", async () => {
    const pets = await Promise.all([addPet(), addPet(), addPet()]);
    const orders = await Promise.all(pets.map((petId) => placeA(petId, 1)));
    now = new Date(now.getTime() + 2 * MINUTE);
    const swept = await Promise.all([rt.orders.sweep(1000), rt.orders.sweep(1000)]);
    expect(swept[0] + swept[1]).toBeGreaterThanOrEqual(orders.length);
    for (const order of orders) {
      expect((await ofA().get(order.id)).status).toBe("expired");
      expect((await eventsOf(order)).map((e) => e.type)).toEqual(["order.placed", "order.expired"]);
    }
    for (const petId of pets) expect(await statusOf(petId)).toBe("available");
    expect(await rt.orders.sweep(1000)).toBe(0);
    await expectInventoryExact();
  });

  it("refuses a status change, bulk change or deletion of a held animal, but changes its name", async () => {
    const petId = await addPet();
    const order = await placeA(petId);
    const refusal = `Animal ${petId} is held by order ${order.id}: complete or cancel the order first.`;
    await expect(rt.pets.update({ id: petId, status: "sold" })).rejects.toMatchObject({
      code: "conflict",
      message: refusal,
    });
    await expect(rt.pets.setStatus([Number(petId)], "available", "user:a@example.com")).rejects.toMatchObject(
      {
        code: "conflict",
        message: refusal,
      },
    );
    await expect(rt.pets.remove(Number(petId), "user:a@example.com")).rejects.toMatchObject({
      code: "conflict",
    });
    expect(await rt.pets.update({ id: petId, name: "Rexy", status: "pending" })).toMatchObject({
      name: "Rexy",
      status: "pending",
    });
    // Once the hold lapses, the change expires it first and then applies.
    now = new Date(now.getTime() + 31 * MINUTE);
    expect(await rt.pets.update({ id: petId, status: "sold" })).toMatchObject({ status: "sold" });
    expect((await ofA().get(order.id)).status).toBe("expired");
  });

  it("compares If-Match with the animal's tag as stored, and writes nothing for a change that changes nothing", async () => {
    const petId = await addPet();
    const stored = await rt.pets.get(petId);
    await expect(
      rt.pets.update({ id: petId, name: "Other" }, undefined, { ifMatch: () => false }),
    ).rejects.toMatchObject({
      code: "precondition_failed",
      status: 412,
    });
    const seen: string[] = [];
    const updated = await rt.pets.update({ id: petId, name: "Other" }, undefined, {
      ifMatch: (tag) => seen.push(tag) > 0,
    });
    expect(seen).toEqual([animalTag(stored)]);
    expect(updated.name).toBe("Other");
    const before = await db().webhookEvent.count();
    expect(await rt.pets.update({ id: petId, name: "Other", categoryId: Number(categoryId) })).toEqual(
      updated,
    );
    expect(await db().webhookEvent.count()).toBe(before);
  });

  it("keeps the inventory exact through creations, changes, deletions and folds", async () => {
    await db().pet.createMany({
      data: Array.from({ length: 50 }, (_, i) => ({
        name: `bulk ${i}`,
        categoryId,
        status: (["available", "pending", "sold", null] as const)[i % 4],
      })),
    });
    await expectInventoryExact();
    await db().pet.updateMany({
      where: { name: { startsWith: "bulk" }, status: null },
      data: { status: "sold" },
    });
    await db().pet.deleteMany({ where: { name: { startsWith: "bulk" }, status: "pending" } });
    await expectInventoryExact();
    expect(await foldInventory(db())).toBeGreaterThan(0);
    expect(await db().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "PetStatusCount"`).toEqual([
      { n: 4 },
    ]);
    expect(await foldInventory(db())).toBe(0);
    await expectInventoryExact();
  });
});
