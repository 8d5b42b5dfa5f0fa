/**
 * GET /v1/store/orders (listOrders) and GET /v1/store/orders/{orderId} (getOrder; docs/contract.md section 1):
 * the caller's orders only (its account's, seen alike by every key of the account; a key outside accounts its
 * own), newest first, filtered by status and animal, paged by signed cursors of their own in `Link`; another
 * owner's order is 404 exactly as a missing one; pages and orders carry an ETag and answer 304 while unchanged.
 * About 2 s.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  accountWithKeys,
  availablePets,
  closeOrder,
  type IssuedKey,
  type Order,
  placeOrder,
  storeKey,
} from "./store-support.ts";
import { type CallResult, expectError, nextLink, pathOf, useServer } from "./support.ts";

const ids = (r: CallResult) => (r.body as Order[]).map((o) => o.id);

describe("listOrders and getOrder (postgres)", () => {
  const t = useServer("postgres");
  let shop: { id: string; keys: IssuedKey[] };
  let other: { id: string; keys: IssuedKey[] };
  let loner: IssuedKey;
  /** The shop's orders, oldest first: placed, cancelled, placed, completed, placed. */
  const placed: Order[] = [];
  let pets: number[] = [];
  let otherOrder: Order;
  let lonerOrder: Order;

  const list = (query: string, key = shop.keys[0]?.key) =>
    t.call("listOrders", `/v1/store/orders${query}`, { headers: t.auth(key) });
  const get = (id: number | string, key = shop.keys[0]?.key, headers: Record<string, string> = {}) =>
    t.call("getOrder", `/v1/store/orders/${id}`, { headers: { ...t.auth(key), ...headers } });

  beforeAll(async () => {
    shop = await accountWithKeys(t, "Listing Shop");
    other = await accountWithKeys(t, "Other Shop", 1);
    loner = await storeKey(t, "loner");
    pets = await availablePets(t, 6);
    for (const [i, petId] of pets.slice(0, 5).entries()) {
      // The account's two keys place its orders alike.
      const order = (await placeOrder(t, { petId }, shop.keys[i % 2]?.key)).body as Order;
      if (i === 1) await closeOrder(t, order.id, "cancel", shop.keys[0]?.key);
      if (i === 3) await closeOrder(t, order.id, "complete", shop.keys[1]?.key);
      placed.push(order);
    }
    otherOrder = (await placeOrder(t, { petId: pets[5] }, other.keys[0]?.key)).body as Order;
    await closeOrder(t, otherOrder.id, "cancel", other.keys[0]?.key);
    lonerOrder = (await placeOrder(t, { petId: pets[5] }, loner.key)).body as Order;
  });

  it("lists the account's orders newest first, the same to each of its keys, and none of another owner's", async () => {
    const newestFirst = placed.map((o) => o.id).reverse();
    expect(ids(await list(""))).toEqual(newestFirst);
    expect(ids(await list("", shop.keys[1]?.key))).toEqual(newestFirst);
    expect(ids(await list("", other.keys[0]?.key))).toEqual([otherOrder.id]);
    expect(ids(await list("", loner.key))).toEqual([lonerOrder.id]);
    expect(ids(await list(""))).not.toContain(lonerOrder.id);
    expect((await list("")).body).toContainEqual(placed[0]);
  });

  it("filters by status and by animal", async () => {
    expect(ids(await list("?status=placed"))).toEqual([placed[4]?.id, placed[2]?.id, placed[0]?.id]);
    expect(ids(await list("?status=cancelled"))).toEqual([placed[1]?.id]);
    expect(ids(await list("?status=expired"))).toEqual([]);
    expect(ids(await list(`?petId=${pets[3]}`))).toEqual([placed[3]?.id]);
    expect(ids(await list(`?petId=${pets[5]}`))).toEqual([]);
    expectError(await list("?status=open"), 400, "validation_failed");
  });

  it("pages by Link with the filters repeated, to the last page, and refuses cursors of another list or filter", async () => {
    const first = await list("?limit=2&status=placed");
    expect(ids(first)).toEqual([placed[4]?.id, placed[2]?.id]);
    const next = nextLink(first.headers) ?? "";
    const url = new URL(next);
    expect(`${url.origin}${url.pathname}`).toBe("https://api.test.example/v1/store/orders");
    expect([...url.searchParams.keys()]).toEqual(["limit", "status", "cursor"]);
    const last = await list(pathOf(next).replace("/v1/store/orders", ""));
    expect(ids(last)).toEqual([placed[0]?.id]);
    expect(nextLink(last.headers)).toBeUndefined();
    const cursor = url.searchParams.get("cursor") ?? "";
    expectError(await list(`?limit=2&cursor=${cursor}`), 400, "validation_failed");
    expectError(
      await list(`?limit=2&status=placed&petId=${pets[0]}&cursor=${cursor}`),
      400,
      "validation_failed",
    );
    const petsPage = await t.call("listPets", "/v1/pets?limit=1", { headers: t.auth() });
    const petsCursor = new URL(nextLink(petsPage.headers) ?? "").searchParams.get("cursor") ?? "";
    const refused = expectError(await list(`?cursor=${petsCursor}`), 400, "validation_failed");
    expect(refused.details).toEqual([{ path: "cursor", message: "is not a cursor issued for this query" }]);
  });

  it("answers a page and an order 304 while unchanged, and a new ETag once the order changes", async () => {
    const page = await list("?status=placed");
    expect(page.headers.get("cache-control")).toBe("private, no-cache, must-revalidate");
    const pageTag = page.headers.get("etag") ?? "";
    expect(pageTag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const cached = await t.call("listOrders", "/v1/store/orders?status=placed", {
      headers: { ...t.auth(shop.keys[0]?.key), "if-none-match": pageTag },
    });
    expect(cached.status).toBe(304);
    const order = placed[4] as Order;
    const fetched = await get(order.id);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(order);
    const tag = fetched.headers.get("etag") ?? "";
    expect((await get(order.id, undefined, { "if-none-match": tag })).status).toBe(304);
    expect((await closeOrder(t, order.id, "cancel", shop.keys[1]?.key)).status).toBe(200);
    const changed = await get(order.id, undefined, { "if-none-match": tag });
    expect(changed.status).toBe(200);
    expect((changed.body as Order).status).toBe("cancelled");
    placed[4] = changed.body as Order;
    const refreshed = await t.call("listOrders", "/v1/store/orders?status=placed", {
      headers: { ...t.auth(shop.keys[0]?.key), "if-none-match": pageTag },
    });
    expect(refreshed.status).toBe(200);
  });

  it("answers another owner's order exactly as one that does not exist", async () => {
    const missing = expectError(await get(999_999_999), 404, "not_found");
    for (const [id, key] of [
      [otherOrder.id, shop.keys[0]?.key],
      [lonerOrder.id, shop.keys[1]?.key],
      [placed[0]?.id, loner.key],
      [placed[0]?.id, other.keys[0]?.key],
    ] as const) {
      const e = expectError(await get(id ?? 0, key), 404, "not_found");
      expect(e.message.replace(String(id), "<id>")).toBe(missing.message.replace("999999999", "<id>"));
    }
    expect((await get(lonerOrder.id, loner.key)).body).toEqual(lonerOrder);
  });
});
