/**
 * GET /v1/store/inventory (getInventory; docs/contract.md section 1): the number of animals in each state, exact as
 * of the request through every way animals change (createPet, updatePet, orders, deletion), with an ETag and 304
 * while unchanged. Its cost at a million animals is the bench's (docs/performance.md). About 1 s.
 */
import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { availablePets, closeOrder, type Order, patchPet, placeOrder } from "./store-support.ts";
import { seedPets, useServer } from "./support.ts";

type Inventory = { available: number; pending: number; sold: number; unset: number };

describe("getInventory (postgres)", () => {
  const t = useServer("postgres");
  const inventory = async () => {
    const r = await t.call("getInventory", "/v1/store/inventory", { headers: t.auth() });
    expect(r.status).toBe(200);
    return r.body as Inventory;
  };
  /** The counts of a `GROUP BY status` over every animal. */
  const counted = async () => {
    const rows = await databaseOf(t.s.rt).prisma.pet.groupBy({ by: ["status"], _count: true });
    const c: Inventory = { available: 0, pending: 0, sold: 0, unset: 0 };
    for (const row of rows) c[row.status ?? "unset"] = row._count;
    return c;
  };

  it("counts the animals by status, exactly, through every change", async () => {
    expect(await inventory()).toEqual({ available: 0, pending: 0, sold: 0, unset: 0 });
    await seedPets(t.s, 7, (i) => ({ status: (["available", "sold", null] as const)[i % 3] }));
    expect(await inventory()).toEqual({ available: 3, pending: 0, sold: 2, unset: 2 });
    await t.create({ name: "Counted", categoryId: t.s.categoryIds[0], status: "available" });
    const [petId = 0] = await availablePets(t);
    const order = (await placeOrder(t, { petId })).body as Order;
    expect(await inventory()).toEqual({ available: 4, pending: 1, sold: 2, unset: 2 });
    await closeOrder(t, order.id, "complete");
    const [other = 0] = await availablePets(t);
    await patchPet(t, other, { status: null });
    await databaseOf(t.s.rt).prisma.pet.deleteMany({ where: { status: "sold" } });
    expect(await inventory()).toEqual(await counted());
    expect(await inventory()).toEqual({ available: 4, pending: 0, sold: 0, unset: 3 });
    // Folding the count rows (the sweep does once a second) changes no figure.
    await t.s.rt.orderSweeper.tick();
    expect(await inventory()).toEqual(await counted());
  });

  it("answers 304 while the counts are unchanged, and a new ETag once they change", async () => {
    const first = await t.call("getInventory", "/v1/store/inventory", { headers: t.auth() });
    expect(first.headers.get("cache-control")).toBe("private, no-cache, must-revalidate");
    const tag = first.headers.get("etag") ?? "";
    const ask = () =>
      t.call("getInventory", "/v1/store/inventory", { headers: { ...t.auth(), "if-none-match": tag } });
    expect((await ask()).status).toBe(304);
    await availablePets(t);
    expect((await ask()).status).toBe(200);
  });
});
