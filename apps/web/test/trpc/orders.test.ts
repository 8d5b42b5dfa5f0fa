/**
 * The dashboard's and the portal's order procedures (docs/contract.md section 4 "Orders", section 7 "Orders in the
 * portal"): search and its filters, complete and cancel audited with the person, the overview's figures.
 */
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  createTestAccount,
  expectTrpcError,
  type Harness,
  openHarness,
  shapeOf,
  type TestAccount,
} from "./support";

describe("order procedures", () => {
  let h: Harness;
  let staff: Caller;
  let ownerOfA: Caller;
  let a: TestAccount;
  let b: TestAccount;
  const keyOf: Record<string, string> = {};
  const now = new Date("2032-03-10T12:00:00.000Z");

  const prisma = () => databaseOf(h.rt).prisma;
  /** The ids of `n` animals that are available, none of them ordered yet. */
  let free: number[] = [];
  const nextPet = () => {
    const id = free.shift();
    if (id === undefined) throw new Error("no available animal left");
    return id;
  };
  const place = async (account: TestAccount, petId = nextPet()) =>
    h.rt.orders.of({ accountId: account.id }).create({ petId }, { apiKeyId: keyOf[account.id] as string });
  const statusOf = async (petId: number) =>
    (await prisma().pet.findUniqueOrThrow({ where: { id: BigInt(petId) } })).status;

  beforeAll(async () => {
    h = await openHarness();
    h.setNow(now);
    staff = (await h.signedIn("staff@example.com")).caller;
    a = await createTestAccount(h.rt, "Shop A", "pro");
    b = await createTestAccount(h.rt, "Shop B", "pro");
    ownerOfA = (await h.signedIn(a.ownerEmail)).caller;
    for (const account of [a, b])
      keyOf[account.id] = (await h.rt.forAccount(account.id).keys.create({ name: "Shop key" }, "test")).id;
    free = (
      await prisma().pet.findMany({ where: { status: "available" }, orderBy: { id: "asc" }, take: 12 })
    ).map((p) => Number(p.id));
  });
  afterAll(() => h?.close());

  it("finds orders newest first, by status, account, animal, id and range, with who placed each", async () => {
    const first = await place(a);
    const second = await place(b);
    const third = await place(a);
    const all = await staff.orders.search({ pageSize: 100 });
    expect(all.rows.map((o) => o.id)).toEqual([third.id, second.id, first.id]);
    expect(all).toMatchObject({ total: 3, totalExact: true });
    expect(all.rows[1]).toMatchObject({ accountId: b.id, accountName: "Shop B", keyName: "Shop key" });
    expect(all.rows[1]?.petName).toEqual(expect.any(String));
    const ofA = await staff.orders.search({ accountId: a.id });
    expect(ofA.rows.map((o) => o.id)).toEqual([third.id, first.id]);
    expect((await staff.orders.search({ petId: second.petId })).rows.map((o) => o.id)).toEqual([second.id]);
    expect((await staff.orders.search({ id: first.id })).rows.map((o) => o.id)).toEqual([first.id]);
    expect((await staff.orders.search({ status: "completed" })).total).toBe(0);
    const inRange = { from: "2032-03-10T00:00:00.000Z", to: "2032-03-11T00:00:00.000Z" };
    expect((await staff.orders.search(inRange)).total).toBe(3);
    expect((await staff.orders.search({ from: inRange.to })).total).toBe(0);
    const page2 = await staff.orders.search({ pageSize: 2, page: 2 });
    expect(page2.rows.map((o) => o.id)).toEqual([first.id]);
    expect(await staff.orders.get({ id: second.id })).toEqual(all.rows[1]);
    await h.rt.orders.cancel(first.id, "test");
    await h.rt.orders.cancel(second.id, "test");
    await h.rt.orders.cancel(third.id, "test");
  });

  it("refuses a range that ends before it starts, naming the field", async () => {
    const error = await expectTrpcError(
      staff.orders.search({ from: "2032-03-11T00:00:00.000Z", to: "2032-03-10T00:00:00.000Z" }),
      "BAD_REQUEST",
    );
    expect(shapeOf(error).data.details?.[0]?.path).toBe("to");
  });

  it("completes a placed order (the animal sold) and audits it with the person; a second complete is answered alike", async () => {
    const order = await place(a);
    const completed = await staff.orders.complete({ id: order.id });
    expect(completed).toMatchObject({ id: order.id, status: "completed", closedAt: now.toISOString() });
    expect(await statusOf(order.petId)).toBe("sold");
    expect(await staff.orders.complete({ id: order.id })).toEqual(completed);
    const audits = await prisma().auditLog.findMany({
      where: { entityType: "order", entityId: String(order.id) },
    });
    expect(audits.map((e) => [e.action, e.actor])).toEqual([["order.complete", "user:staff@example.com"]]);
    const error = await expectTrpcError(staff.orders.cancel({ id: order.id }), "CONFLICT");
    expect(error.message).toBe(`Order ${order.id} is completed: only a placed order can be cancelled.`);
  });

  it("cancels a placed order (the animal available again), audited; an unknown order is NOT_FOUND", async () => {
    const order = await place(b);
    expect(await staff.orders.cancel({ id: order.id })).toMatchObject({ status: "cancelled" });
    expect(await statusOf(order.petId)).toBe("available");
    const audit = await prisma().auditLog.findFirstOrThrow({
      where: { entityType: "order", entityId: String(order.id) },
    });
    expect(audit).toMatchObject({ action: "order.cancel", actor: "user:staff@example.com" });
    await expectTrpcError(staff.orders.complete({ id: 999_999 }), "NOT_FOUND");
    await expectTrpcError(staff.orders.get({ id: 999_999 }), "NOT_FOUND");
  });

  it("counts open holds and orders placed today (UTC) for the overview", async () => {
    const before = await staff.overview.orders();
    await place(a);
    h.setNow(new Date("2032-03-11T00:30:00.000Z"));
    try {
      expect(await staff.overview.orders()).toEqual({ placed: before.placed + 1, today: 0 });
      await place(b);
      expect(await staff.overview.orders()).toEqual({ placed: before.placed + 2, today: 1 });
    } finally {
      h.setNow(now);
    }
  });

  it("offers the accounts by name, id and name only, for the account filter", async () => {
    expect(await staff.orders.accounts()).toEqual([
      { id: a.id, name: "Shop A" },
      { id: b.id, name: "Shop B" },
    ]);
  });

  it("shows a member the account's orders only and cancels one, audited with the member", async () => {
    const own = await place(a);
    const other = await place(b);
    const page = await ownerOfA.portal.orders.search({ status: "placed", pageSize: 100 });
    expect(page.rows.every((o) => o.accountId === a.id)).toBe(true);
    expect(page.rows.map((o) => o.id)).toContain(own.id);
    expect(page.rows.map((o) => o.id)).not.toContain(other.id);
    expect((await ownerOfA.portal.orders.search({ petId: other.petId })).total).toBe(0);
    expect((await ownerOfA.portal.orders.get({ id: own.id })).id).toBe(own.id);
    expect(await ownerOfA.portal.orders.cancel({ id: own.id })).toMatchObject({ status: "cancelled" });
    const audit = await prisma().auditLog.findFirstOrThrow({
      where: { entityType: "order", entityId: String(own.id) },
    });
    expect(audit).toMatchObject({ action: "order.cancel", actor: `user:${a.ownerEmail}` });
    await expectTrpcError(ownerOfA.portal.orders.cancel({ id: other.id }), "NOT_FOUND");
    expect((await h.rt.orders.get(other.id)).status).toBe("placed");
  });

  it("refuses an account filter in the portal: the account is always the member's own", async () => {
    const error = await expectTrpcError(ownerOfA.portal.orders.search({ accountId: b.id }), "BAD_REQUEST");
    expect(shapeOf(error).data.details?.[0]?.path).toBe("accountId");
  });
});
