/**
 * PATCH /v1/pets/{petId} (updatePet; docs/contract.md section 1, "PATCH /v1/pets/{petId} (updatePet)"): a JSON
 * merge patch (application/merge-patch+json or application/json) of name, category and status; `status: null`
 * removes it; 200 with the animal and the ETag getPet gives it (createPet's 201 gives the same); `If-Match` with
 * an earlier tag is 412 and writes nothing; a status change of a held animal is 409; a change that changes nothing
 * writes nothing and sends no event; `pet.updated` for every change. About 1.5 s.
 */
import { databaseOf } from "@petstore/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { availablePets, type Order, patchPet, placeOrder } from "./store-support.ts";
import { expectError, seedPets, useServer } from "./support.ts";

type Animal = { id: number; name: string; categoryId: number; status?: string };

describe("updatePet (postgres)", () => {
  const t = useServer("postgres");
  const read = (id: number) => t.call("getPet", `/v1/pets/${id}`, { headers: t.auth() });
  const events = async (id: number) =>
    (
      await databaseOf(t.s.rt).prisma.webhookEvent.findMany({
        where: { type: "pet.updated" },
        orderBy: { id: "asc" },
      })
    )
      .map((e) => JSON.parse(e.data) as Animal & { previous: Record<string, unknown> })
      .filter((d) => d.id === id);

  beforeAll(async () => {
    await databaseOf(t.s.rt).prisma.webhookEndpoint.create({
      data: {
        url: "https://store.example/hooks",
        eventTypes: ["pet.updated"],
        secret: "whsec_x",
        createdBy: "test",
      },
    });
  });

  it("changes the fields a merge patch names, and answers the animal with getPet's ETag", async () => {
    const [id = 0] = await availablePets(t);
    const categoryId = t.s.categoryIds[2] ?? 3;
    const r = await patchPet(t, id, { name: "  Patched ", categoryId });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id, name: "Patched", categoryId, status: "available" });
    expect(r.headers.get("cache-control")).toBe("no-store");
    const fetched = await read(id);
    expect(fetched.body).toEqual(r.body);
    expect(r.headers.get("etag")).toBe(fetched.headers.get("etag"));
    expect(await events(id)).toEqual([
      { ...(r.body as Animal), previous: { name: `seed 0`, categoryId: t.s.categoryIds[0] } },
    ]);
  });

  it("removes the status with null, takes application/json too, and writes nothing for a patch that changes nothing", async () => {
    const [id = 0] = await availablePets(t);
    const removed = await patchPet(t, id, { status: null }, { "content-type": "application/json" });
    expect(removed.body).toEqual({ id, name: "seed 0", categoryId: t.s.categoryIds[0] });
    const before = (await events(id)).length;
    const same = await patchPet(t, id, { name: "seed 0", status: null });
    expect(same.status).toBe(200);
    expect(same.headers.get("etag")).toBe(removed.headers.get("etag"));
    expect((await patchPet(t, id, {})).body).toEqual(removed.body);
    expect(await events(id)).toHaveLength(before);
  });

  it("gives createPet's 201 the ETag getPet gives the same animal, so a change can start from it", async () => {
    const created = await t.create({ name: "Fresh", categoryId: t.s.categoryIds[0] });
    const tag = created.headers.get("etag") ?? "";
    expect(tag).toBe((await read((created.body as Animal).id)).headers.get("etag"));
    const r = await patchPet(t, (created.body as Animal).id, { status: "sold" }, { "if-match": tag });
    expect(r.status).toBe(200);
  });

  it("applies If-Match: the current tag or * change the animal; an earlier or weak tag is 412 and writes nothing", async () => {
    const [id = 0] = await availablePets(t);
    const first = (await read(id)).headers.get("etag") ?? "";
    const changed = await patchPet(t, id, { name: "First change" }, { "if-match": first });
    expect(changed.status).toBe(200);
    const second = changed.headers.get("etag") ?? "";
    expect(second).not.toBe(first);
    for (const stale of [first, `W/${second}`, `"nothing", ${first}`, "not a tag"]) {
      const e = expectError(
        await patchPet(t, id, { name: "Lost" }, { "if-match": stale }),
        412,
        "precondition_failed",
      );
      expect(e.message).toContain(`Animal ${id}`);
    }
    expect((await read(id)).body).toMatchObject({ name: "First change" });
    expect((await patchPet(t, id, { name: "Listed" }, { "if-match": `"other", ${second}` })).status).toBe(
      200,
    );
    expect((await patchPet(t, id, { name: "Any" }, { "if-match": "*" })).status).toBe(200);
  });

  it("refuses a status change of an animal an order holds (409 naming the order), but changes its name", async () => {
    const [id = 0] = await availablePets(t);
    const order = (await placeOrder(t, { petId: id })).body as Order;
    for (const status of ["available", "sold", null]) {
      const e = expectError(await patchPet(t, id, { status }), 409, "conflict");
      expect(e.message).toBe(
        `Animal ${id} is held by order ${order.id}: complete or cancel the order first.`,
      );
    }
    const renamed = await patchPet(t, id, { name: "Held", status: "pending" });
    expect(renamed.body).toMatchObject({ name: "Held", status: "pending" });
  });

  it("answers 404 for an unknown animal and 400 for an unknown category, writing nothing", async () => {
    expectError(await patchPet(t, 999_999_999, { name: "Ghost" }), 404, "not_found");
    const [id = 0] = await seedPets(t.s, 1);
    const e = expectError(await patchPet(t, id, { categoryId: 999_999 }), 400, "validation_failed");
    expect(e.details).toEqual([{ path: "categoryId", message: "no category with id 999999" }]);
    expectError(
      await patchPet(t, id, { name: "Plain" }, { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
    expect((await read(id)).body).toMatchObject({ name: "seed 0" });
  });
});
