/**
 * Key scopes on every operation (docs/contract.md section 2, "Scopes"): `pets:read` lists and fetches animals and
 * the inventory, `pets:write` creates and changes animals, `orders:read` lists and fetches orders, `orders:write`
 * places, completes and cancels them; none implies another; a call outside them is 403 `insufficient_scope` with
 * the RFC 6750 challenge naming the scope and the rate-limit headers, counts like any request that reached the
 * API, and changes nothing.
 */
import { API_KEY_SCOPES, type ApiKeyScope, SCOPE_DESCRIPTIONS } from "@petstore/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { type CallResult, type Ctx, expectError, seedPets, useServer } from "./support.ts";

const challenge = (scope: ApiKeyScope) =>
  `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"`;

function expectInsufficientScope(r: CallResult, scope: ApiKeyScope): void {
  const e = expectError(r, 403, "insufficient_scope");
  expect(r.headers.get("www-authenticate")).toBe(challenge(scope));
  expect(e.message).toContain(scope);
  expect(e.message).toContain(SCOPE_DESCRIPTIONS[scope]);
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit"])
    expect(r.headers.get(name), name).not.toBeNull();
}

describe("key scopes (postgres)", () => {
  const t: Ctx = useServer("postgres");
  let petId = 0;
  let readOnly = "";
  let writeOnly = "";

  const issue = async (scopes: ApiKeyScope[], perMinute = 100_000) =>
    (
      await t.s.rt.apiKeys.create(
        { name: `scopes ${scopes.join(" ")}`, plan: "enterprise", perMinute, perDay: 1_000_000, scopes },
        "test",
      )
    ).key;

  beforeAll(async () => {
    [petId = 0] = await seedPets(t.s, 2);
    readOnly = await issue(["pets:read"]);
    writeOnly = await issue(["pets:write"]);
  });

  const create = (key: string, body: unknown = { name: "Scoped", categoryId: t.s.categoryIds[0] }) =>
    t.call("createPet", "/v1/pets", {
      method: "POST",
      headers: { ...t.auth(key), "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("gives a key every scope unless it names fewer", async () => {
    const keys = await t.s.rt.apiKeys.list();
    expect(keys.find((k) => k.name === "test")?.scopes).toEqual([
      "pets:read",
      "pets:write",
      "orders:read",
      "orders:write",
    ]);
    expect(keys.find((k) => k.name === "scopes pets:read")?.scopes).toEqual(["pets:read"]);
  });

  it("lets a pets:read key list and fetch, and refuses it creation without creating anything", async () => {
    expect((await t.call("listPets", "/v1/pets", { headers: t.auth(readOnly) })).status).toBe(200);
    expect((await t.call("getPet", `/v1/pets/${petId}`, { headers: t.auth(readOnly) })).status).toBe(200);
    const before = await t.petCount();
    expectInsufficientScope(await create(readOnly), "pets:write");
    // The scope is checked before the body: a bad body still learns what the key lacks.
    expectInsufficientScope(await create(readOnly, { colour: "red" }), "pets:write");
    expect(await t.petCount()).toBe(before);
  });

  it("lets a pets:write key create, and refuses it listing and fetching (write implies nothing else)", async () => {
    expect((await create(writeOnly)).status).toBe(201);
    expectInsufficientScope(
      await t.call("listPets", "/v1/pets", { headers: t.auth(writeOnly) }),
      "pets:read",
    );
    expectInsufficientScope(
      await t.call("getPet", `/v1/pets/${petId}`, { headers: t.auth(writeOnly) }),
      "pets:read",
    );
    // The lifecycle headers of getPet are on its 403 too, like on every answer of the operation.
    const refused = await t.call("getPet", `/v1/pets/${petId}`, { headers: t.auth(writeOnly) });
    expect(refused.headers.get("deprecation")).not.toBeNull();
  });

  /** Every operation that needs a scope, with the scope and a request of it (ids of nothing: 404 and 400 are fine). */
  const TABLE: [string, ApiKeyScope, (key: string) => Promise<CallResult>][] = [
    ["listPets", "pets:read", (key) => t.call("listPets", "/v1/pets", { headers: t.auth(key) })],
    ["getPet", "pets:read", (key) => t.call("getPet", `/v1/pets/${petId}`, { headers: t.auth(key) })],
    [
      "listCategories",
      "pets:read",
      (key) => t.call("listCategories", "/v1/categories", { headers: t.auth(key) }),
    ],
    [
      "getInventory",
      "pets:read",
      (key) => t.call("getInventory", "/v1/store/inventory", { headers: t.auth(key) }),
    ],
    ["createPet", "pets:write", (key) => create(key)],
    [
      "updatePet",
      "pets:write",
      (key) =>
        t.call("updatePet", `/v1/pets/${petId}`, {
          method: "PATCH",
          headers: { ...t.auth(key), "content-type": "application/merge-patch+json" },
          body: "{}",
        }),
    ],
    [
      "listOrders",
      "orders:read",
      (key) => t.call("listOrders", "/v1/store/orders", { headers: t.auth(key) }),
    ],
    [
      "getOrder",
      "orders:read",
      (key) => t.call("getOrder", "/v1/store/orders/999999", { headers: t.auth(key) }),
    ],
    [
      "createOrder",
      "orders:write",
      (key) =>
        t.call("createOrder", "/v1/store/orders", {
          method: "POST",
          headers: { ...t.auth(key), "content-type": "application/json" },
          body: JSON.stringify({ petId: 999_999 }),
        }),
    ],
    [
      "completeOrder",
      "orders:write",
      (key) =>
        t.call("completeOrder", "/v1/store/orders/999999/complete", { method: "POST", headers: t.auth(key) }),
    ],
    [
      "cancelOrder",
      "orders:write",
      (key) =>
        t.call("cancelOrder", "/v1/store/orders/999999/cancel", { method: "POST", headers: t.auth(key) }),
    ],
  ];

  it("answers each operation to a key holding its scope alone, and 403 to a key holding every other scope", async () => {
    const only = new Map<ApiKeyScope, string>();
    const allBut = new Map<ApiKeyScope, string>();
    for (const scope of API_KEY_SCOPES) {
      only.set(scope, await issue([scope]));
      allBut.set(scope, await issue(API_KEY_SCOPES.filter((s) => s !== scope)));
    }
    for (const [id, scope, send] of TABLE) {
      const allowed = await send(only.get(scope) ?? "");
      expect(allowed.status, `${id} with ${scope}`).not.toBe(403);
      expect(allowed.status, `${id} with ${scope}`).toBeLessThan(500);
      expectInsufficientScope(await send(allBut.get(scope) ?? ""), scope);
    }
    // The document names each operation's scope in its security requirement.
    for (const [id, scope] of TABLE) {
      const op = Object.values(
        t.doc.paths as Record<string, Record<string, { operationId?: string; security?: unknown }>>,
      )
        .flatMap((item) => Object.values(item))
        .find((o) => o.operationId === id);
      expect(op?.security, id).toEqual([{ bearerAuth: [scope] }]);
    }
  });

  it("tells who can fix a refusal: an admin for a key outside accounts, the account's members in the portal", async () => {
    const admin = expectError(await create(readOnly), 403, "insufficient_scope");
    expect(admin.message).toContain("An admin can add it");
    const account = await t.s.rt.accounts.create(
      { name: "Scoped Shop", plan: "pro", ownerEmail: "owner@scoped.example" },
      "test",
    );
    const { key } = await t.s.rt.apiKeys.createInAccount(
      account.id,
      { name: "reader", scopes: ["pets:read"] },
      "test",
    );
    const member = expectError(await create(key), 403, "insufficient_scope");
    expect(member.message).toContain(
      "A member of its account can create a key that has it in the developer portal",
    );
    expect(member.message).not.toContain("admin");
  });

  it("counts a refusal against the key's limits and in its usage, like any request", async () => {
    const key = await issue(["pets:read"], 3);
    const caller = await t.s.rt.apiKeys.authenticate(key);
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await create(key);
      expectInsufficientScope(r, "pets:write");
      remaining.push(r.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    expectError(await create(key), 429, "rate_limited");
    expect(await t.s.rt.usage.requestsToday(caller?.keyId ?? "")).toBe(3);
  });

  it("applies a change of scopes at once on the instance that made it, and a roll keeps them", async () => {
    const key = await issue(["pets:read"]);
    const caller = await t.s.rt.apiKeys.authenticate(key);
    expectInsufficientScope(await create(key), "pets:write");
    const changed = await t.s.rt.apiKeys.changeScopes(caller?.keyId ?? "", ["pets:write"], "test");
    expect(changed.scopes).toEqual(["pets:write"]);
    expect((await create(key)).status).toBe(201);
    expectInsufficientScope(await t.call("listPets", "/v1/pets", { headers: t.auth(key) }), "pets:read");
    const rolled = await t.s.rt.apiKeys.roll(caller?.keyId ?? "", 3600, "test");
    expect(rolled.scopes).toEqual(["pets:write"]);
    expectInsufficientScope(
      await t.call("listPets", "/v1/pets", { headers: t.auth(rolled.key) }),
      "pets:read",
    );
  });
});
