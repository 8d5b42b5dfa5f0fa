import { describe, expect, it } from "vitest";
import { categoryId, expectTrpcError, shapeOf, useHarness } from "./support";

describe("categories procedures (staff)", () => {
  const h = useHarness();
  const staff = h.as("staff@example.com");

  it("lists categories by name with animal counts", async () => {
    const list = await staff.categories.list();
    expect(list.map((c) => c.name)).toEqual(["birds", "cats", "dogs", "fish", "reptiles", "small mammals"]);
    expect(list.every((c) => c.petCount === 6)).toBe(true);
  });

  it("creates and renames, refusing taken names with a field message", async () => {
    const created = await staff.categories.create({ name: " hamsters " });
    expect(created).toMatchObject({ name: "hamsters", petCount: 0 });
    const taken = await expectTrpcError(staff.categories.create({ name: "dogs" }), "BAD_REQUEST");
    expect(shapeOf(taken).data.details).toEqual([{ path: "name", message: "is already taken" }]);
    expect(await staff.categories.rename({ id: created.id, name: "rodents" })).toMatchObject({
      id: created.id,
      name: "rodents",
    });
    await expectTrpcError(staff.categories.rename({ id: created.id, name: "cats" }), "BAD_REQUEST");
    const empty = await expectTrpcError(staff.categories.rename({ id: created.id, name: "" }), "BAD_REQUEST");
    expect(shapeOf(empty).data.details).toEqual([{ path: "name", message: "must not be empty" }]);
    await expectTrpcError(staff.categories.rename({ id: 999_999, name: "x" }), "NOT_FOUND");
  });

  it("refuses a name that differs from a taken one only in letter case, naming the existing category", async () => {
    const hamsters = await staff.categories.create({ name: "hamsters UX" });
    const clash = await expectTrpcError(staff.categories.create({ name: "Hamsters ux" }), "BAD_REQUEST");
    expect(clash.message).toBe(
      'A category named "hamsters UX" already exists; names are the same regardless of letter case.',
    );
    expect(shapeOf(clash).data.details).toEqual([
      { path: "name", message: 'is already taken by "hamsters UX" (case does not matter)' },
    ]);
    await expectTrpcError(staff.categories.rename({ id: hamsters.id, name: "DOGS" }), "BAD_REQUEST");
    // A category may change the case of its own name.
    expect(await staff.categories.rename({ id: hamsters.id, name: "Hamsters UX" })).toMatchObject({
      name: "Hamsters UX",
    });
    expect(
      (await staff.categories.list()).filter((c) => c.name.toLowerCase() === "hamsters ux"),
    ).toHaveLength(1);
  });

  it("deletes a category only when no animal uses it", async () => {
    const dogs = await categoryId(h.rt, "dogs");
    const inUse = await expectTrpcError(staff.categories.remove({ id: dogs }), "CONFLICT");
    expect(inUse.message).toMatch(/still has 6 animal/);
    const empty = await staff.categories.create({ name: "insects" });
    expect(await staff.categories.remove({ id: empty.id })).toEqual({ id: empty.id });
    expect((await staff.categories.list()).some((c) => c.name === "insects")).toBe(false);
    await expectTrpcError(staff.categories.remove({ id: empty.id }), "NOT_FOUND");
  });
});
