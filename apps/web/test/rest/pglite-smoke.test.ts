/**
 * The REST API on the embedded database (PGlite, what a deployment without DATABASE_URL runs on), end to end over
 * HTTP through the socket: list with paging, create, get, the errors, an idempotent retry, a conditional GET, the
 * categories and the calling key, the store section (one order of concurrent ones placed, completed, changing the
 * inventory; a merge patch with If-Match), and a database closed under the running server (503 with Retry-After). Every
 * other REST suite runs on PostgreSQL; the services run on both databases in core's tests.
 */
import { databaseOf } from "@petstore/core/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeOrder, type Order, patchPet, placeOrder } from "./store-support.ts";
import {
  type CallResult,
  expectError,
  expectUnavailable,
  nextLink,
  pathOf,
  seedPets,
  useServer,
} from "./support.ts";

type Animal = { id: number; name: string; categoryId: number; status?: string };

const ids = (r: CallResult) => (r.body as Animal[]).map((a) => a.id);

describe("REST over HTTP on PGlite", () => {
  const t = useServer("pglite", { transport: "socket" });
  /** Seeded: 25 animals, the even ones available, the odd ones sold. */
  let seeded: number[] = [];
  const available = () => seeded.filter((_, i) => i % 2 === 0);

  beforeAll(async () => {
    seeded = await seedPets(t.s, 25, (i) => ({ name: `lite ${i}`, status: i % 2 ? "sold" : "available" }));
  });

  afterEach(() => t.s.setNow(new Date()));

  it("lists a filtered page and follows its next link to the last one", async () => {
    const first = await t.call("listPets", "/v1/pets?limit=10&status=available", { headers: t.auth() });
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual(available().slice(0, 10));
    const next = nextLink(first.headers) ?? "";
    expect(new URL(next).origin).toBe("https://api.test.example");
    const last = await t.call("listPets", pathOf(next), { headers: t.auth() });
    expect(ids(last)).toEqual(available().slice(10));
    expect(nextLink(last.headers)).toBeUndefined();
  });

  it("creates an animal (201, Location) and gets it back", async () => {
    const created = await t.create({ name: "Embedded", categoryId: t.s.categoryIds[1], status: "pending" });
    expect(created.status).toBe(201);
    const animal = created.body as Animal;
    expect(animal).toEqual({
      id: expect.any(Number),
      name: "Embedded",
      categoryId: t.s.categoryIds[1],
      status: "pending",
    });
    expect(animal.id).toBeGreaterThan(Math.max(...seeded));
    expect(created.headers.get("location")).toBe(`https://api.test.example/v1/pets/${animal.id}`);
    const fetched = await t.call("getPet", `/v1/pets/${animal.id}`, { headers: t.auth() });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(animal);
    expect(fetched.headers.get("deprecation")).toBe("@1767225600");
  });

  it("answers the errors: 400 with details, 401 with a challenge, 404 and 405, creating nothing", async () => {
    const before = await t.petCount();
    const invalid = expectError(await t.create({ name: "", categoryId: 1 }), 400, "validation_failed");
    expect(invalid.details?.map((d) => d.path)).toContain("name");
    const unknownCategory = await t.create({ name: "Lost", categoryId: 999_999 });
    expect(expectError(unknownCategory, 400, "validation_failed").details).toEqual([
      { path: "categoryId", message: "no category with id 999999" },
    ]);
    const anonymous = await t.call("listPets", "/v1/pets", {});
    expectError(anonymous, 401, "unauthorized");
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="petstore"');
    expectError(await t.call("getPet", "/v1/pets/999999", { headers: t.auth() }), 404, "not_found");
    expectError(await t.call(null, "/v1/pets", { method: "DELETE" }), 405, "method_not_allowed");
    expect(await t.petCount()).toBe(before);
  });

  it("replays an idempotent retry and refuses the key for another body", async () => {
    const body = { name: "Once", categoryId: t.s.categoryIds[0] };
    const first = await t.create(body, { "idempotency-key": "lite-1" });
    expect(first.status).toBe(201);
    const count = await t.petCount();
    const retry = await t.create(body, { "idempotency-key": "lite-1" });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    const other = await t.create({ ...body, name: "Twice" }, { "idempotency-key": "lite-1" });
    expectError(other, 422, "idempotency_key_reused");
    expect(await t.petCount()).toBe(count);
  });

  it("answers a conditional GET 304 while the page is unchanged, 200 with a new tag once it changes", async () => {
    const path = "/v1/pets?limit=3&status=sold";
    const first = await t.call("listPets", path, { headers: t.auth() });
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const cached = await t.call("listPets", path, { headers: { ...t.auth(), "if-none-match": etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get("etag")).toBe(etag);
    await databaseOf(t.s.rt).prisma.pet.update({
      where: { id: BigInt(seeded[1] ?? 0) },
      data: { name: "renamed lite" },
    });
    const changed = await t.call("listPets", path, { headers: { ...t.auth(), "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(changed.text).toContain("renamed lite");
  });

  it("places one of concurrent orders for an animal, completes it, and counts it in the inventory", async () => {
    const inventory = async () =>
      (await t.call("getInventory", "/v1/store/inventory", { headers: t.auth() })).body as Record<
        string,
        number
      >;
    const before = await inventory();
    const petId = available()[0] ?? 0;
    const answers = await Promise.all(Array.from({ length: 5 }, () => placeOrder(t, { petId })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const order = answers.find((r) => r.status === 201)?.body as Order;
    expect(await inventory()).toEqual({
      ...before,
      available: (before.available ?? 0) - 1,
      pending: (before.pending ?? 0) + 1,
    });
    const completed = await closeOrder(t, order.id, "complete");
    expect(completed.body).toMatchObject({ id: order.id, status: "completed" });
    expect(await inventory()).toEqual({
      ...before,
      available: (before.available ?? 0) - 1,
      sold: (before.sold ?? 0) + 1,
    });
    const listed = await t.call("listOrders", "/v1/store/orders", { headers: t.auth() });
    expect(listed.body).toEqual([completed.body]);
  });

  it("changes an animal by a merge patch with If-Match, and refuses an earlier tag", async () => {
    const id = available()[1] ?? 0;
    const tag = (await t.call("getPet", `/v1/pets/${id}`, { headers: t.auth() })).headers.get("etag") ?? "";
    const r = await patchPet(t, id, { name: "Patched lite" }, { "if-match": tag });
    expect(r.body).toMatchObject({ id, name: "Patched lite" });
    expectError(await patchPet(t, id, { name: "Late" }, { "if-match": tag }), 412, "precondition_failed");
  });

  it("lists the categories page by page and describes the calling key (the additions to the interface)", async () => {
    const first = await t.call("listCategories", "/v1/categories?limit=2", { headers: t.auth() });
    expect(first.body).toEqual([
      { id: t.s.categoryIds[0], name: "dogs" },
      { id: t.s.categoryIds[1], name: "cats" },
    ]);
    const next = nextLink(first.headers) ?? "";
    expect(new URL(next).origin).toBe("https://api.test.example");
    const last = await t.call("listCategories", pathOf(next), { headers: t.auth() });
    expect(last.body).toEqual([{ id: t.s.categoryIds[2], name: "birds" }]);
    expect(nextLink(last.headers)).toBeUndefined();
    const me = await t.call("getMe", "/v1/me", { headers: t.auth() });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      key: { prefix: t.s.key.slice(0, 12), name: "test", expiresAt: null },
      plan: { name: "enterprise", limits: { perMinute: 100_000, perDay: 1_000_000 } },
    });
  });

  // Last: it closes the database under the running server.
  it("answers 503 with Retry-After on every operation once the database is closed", async () => {
    expect((await t.call("listPets", "/v1/pets", { headers: t.auth() })).status).toBe(200);
    await databaseOf(t.s.rt).pglite?.close();
    // Past the key cache, so that authentication itself needs the database.
    t.s.setNow(new Date(Date.now() + 5_000));
    const create = (headers: Record<string, string> = {}) =>
      t.create({ name: "During failure", categoryId: t.s.categoryIds[0] }, headers);
    expectUnavailable(await t.call("listPets", "/v1/pets", { headers: t.auth() }));
    expectUnavailable(await create());
    expectUnavailable(await create({ "idempotency-key": "outage-1" }));
    expectUnavailable(await t.call("getPet", `/v1/pets/${seeded[0]}`, { headers: t.auth() }));
    expectUnavailable(await t.call("listOrders", "/v1/store/orders", { headers: t.auth() }));
    expectUnavailable(await t.call("getInventory", "/v1/store/inventory", { headers: t.auth() }));
    expectUnavailable(await t.call("listCategories", "/v1/categories", { headers: t.auth() }));
    expectUnavailable(await t.call("getMe", "/v1/me", { headers: t.auth() }));
    // Without a key no database is needed to answer: still 401.
    expectError(await t.call("listPets", "/v1/pets", {}), 401, "unauthorized");
    expectError(await t.call(null, "/v1/nowhere"), 404, "not_found");
  });
});
