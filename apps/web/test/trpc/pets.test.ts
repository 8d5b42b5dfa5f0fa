import { databaseOf } from "@petstore/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { categoryId, expectTrpcError, shapeOf, useHarness } from "./support";

describe("pets procedures (staff)", () => {
  const h = useHarness();
  const staff = h.as("staff@example.com");
  let dogs: number;
  let cats: number;
  beforeAll(async () => {
    dogs = await categoryId(h.rt, "dogs");
    cats = await categoryId(h.rt, "cats");
  });

  it("pages through the seeded animals with a total", async () => {
    const first = await staff.pets.search({ pageSize: 10 });
    expect(first.total).toBe(36);
    expect(first.rows).toHaveLength(10);
    expect(first.rows[0]).toMatchObject({
      id: expect.any(Number),
      name: expect.any(String),
      categoryName: expect.any(String),
    });
    const last = await staff.pets.search({ pageSize: 10, page: 4 });
    expect(last.rows).toHaveLength(6);
    const ids = [...first.rows, ...last.rows].map((r) => r.id);
    expect(new Set(ids).size).toBe(16);
  });

  it("sorts by name and by id in both directions", async () => {
    const byName = await staff.pets.search({ sortBy: "name", sortDirection: "asc", pageSize: 100 });
    const names = byName.rows.map((r) => r.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const byIdDesc = await staff.pets.search({ sortBy: "id", sortDirection: "desc", pageSize: 5 });
    const ids = byIdDesc.rows.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it("filters by status, by 'no status', by category, and searches names case-insensitively", async () => {
    expect((await staff.pets.search({ status: "available" })).total).toBe(18);
    expect((await staff.pets.search({ status: "none" })).total).toBe(6);
    const inDogs = await staff.pets.search({ categoryId: dogs, pageSize: 100 });
    expect(inDogs.total).toBe(6);
    expect(inDogs.rows.every((r) => r.categoryName === "dogs")).toBe(true);
    const search = await staff.pets.search({ query: "REX" });
    expect(search.rows.map((r) => r.name)).toEqual(["Rex"]);
  });

  it("rejects bad search input", async () => {
    const error = await expectTrpcError(staff.pets.search({ pageSize: 1000 }), "BAD_REQUEST");
    expect(shapeOf(error).data.details?.[0]?.path).toBe("pageSize");
  });

  it("creates an animal, then gets, edits and deletes it", async () => {
    const created = await staff.pets.create({ name: "  Biscuit  ", categoryId: dogs, status: "pending" });
    expect(created).toMatchObject({ name: "Biscuit", categoryId: dogs, status: "pending" });
    expect(await staff.pets.get({ id: created.id })).toEqual(created);
    const edited = await staff.pets.update({
      id: created.id,
      name: "Biscuit II",
      categoryId: cats,
      status: null,
    });
    expect(edited).toEqual({ id: created.id, name: "Biscuit II", categoryId: cats });
    // The REST API reads the same data.
    expect(await h.rt.pets.get(BigInt(created.id))).toEqual(edited);
    expect(await staff.pets.remove({ id: created.id })).toEqual({ id: created.id });
    await expectTrpcError(staff.pets.get({ id: created.id }), "NOT_FOUND");
    await expectTrpcError(staff.pets.remove({ id: created.id }), "NOT_FOUND");
    await expectTrpcError(staff.pets.update({ id: created.id, name: "x" }), "NOT_FOUND");
  });

  it("words validation failures like the REST API", async () => {
    const empty = await expectTrpcError(staff.pets.create({ name: "   ", categoryId: dogs }), "BAD_REQUEST");
    expect(shapeOf(empty).message).toBe("Invalid name: must not be empty");
    expect(shapeOf(empty).data).toMatchObject({
      appCode: "validation_failed",
      details: [{ path: "name", message: "must not be empty" }],
    });
    const unknown = await expectTrpcError(
      staff.pets.create({ name: "Ghost", categoryId: 999_999 }),
      "BAD_REQUEST",
    );
    expect(shapeOf(unknown).data.details).toEqual([
      { path: "categoryId", message: "no category with id 999999" },
    ]);
    const extra = await expectTrpcError(
      staff.pets.create({ name: "X", categoryId: dogs, id: 5 } as never),
      "BAD_REQUEST",
    );
    expect(shapeOf(extra).data.details).toEqual([{ path: "id", message: "unknown property: id" }]);
    const long = await expectTrpcError(staff.pets.update({ id: 1, name: "x".repeat(101) }), "BAD_REQUEST");
    expect(shapeOf(long).data.details).toEqual([{ path: "name", message: "must be at most 100 characters" }]);
  });

  it("changes the status of several animals at once and audits each", async () => {
    const { rows } = await staff.pets.search({ categoryId: cats, pageSize: 3 });
    const ids = rows.map((r) => r.id);
    const before = rows.map((r) => ({ id: r.id, status: r.status }));
    const changed = await staff.pets.setStatus({ ids, status: "sold" });
    expect(changed).toEqual({ updated: 3, previous: before });
    for (const id of ids) expect((await staff.pets.get({ id })).status).toBe("sold");
    const audits = await databaseOf(h.rt).prisma.auditLog.findMany({
      where: { action: "pet.setStatus", actor: "user:staff@example.com" },
    });
    expect(audits.map((a) => Number(a.entityId)).sort()).toEqual([...ids].sort());
    await expectTrpcError(staff.pets.setStatus({ ids: [], status: "sold" }), "BAD_REQUEST");
  });

  it("undoes a bulk status change, leaving an animal changed since as it is", async () => {
    const { rows } = await staff.pets.search({ categoryId: dogs, pageSize: 3 });
    const [first, second, third] = rows.map((r) => r.id) as [number, number, number];
    await staff.pets.update({ id: first, status: "available" });
    await staff.pets.update({ id: second, status: null });
    await staff.pets.update({ id: third, status: "pending" });
    const { previous } = await staff.pets.setStatus({ ids: [first, second, third], status: "sold" });
    // Someone sells the third one again as "available" before the undo.
    await staff.pets.update({ id: third, status: "available" });

    expect(await staff.pets.restoreStatus({ previous, from: "sold" })).toEqual({ restored: 2, skipped: 1 });
    expect((await staff.pets.get({ id: first })).status).toBe("available");
    expect((await staff.pets.get({ id: second })).status).toBeUndefined();
    expect((await staff.pets.get({ id: third })).status).toBe("available");
    // The undo is audited per animal it restored, as the change was.
    const audited = await databaseOf(h.rt).prisma.auditLog.groupBy({
      by: ["entityId"],
      where: { action: "pet.setStatus", entityId: { in: [first, second, third].map(String) } },
      _count: { _all: true },
    });
    expect(Object.fromEntries(audited.map((a) => [Number(a.entityId), a._count._all]))).toEqual({
      [first]: 2,
      [second]: 2,
      [third]: 1,
    });
    await expectTrpcError(staff.pets.restoreStatus({ previous: [], from: "sold" }), "BAD_REQUEST");
  });
});
