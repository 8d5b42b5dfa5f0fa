/**
 * The client's retry loop, errors, Idempotency-Key and rate-limit state over real HTTP against a scripted
 * server, with sleep and randomness injected (the waits are recorded, not slept). The behaviour against the
 * real API is tested in apps/web/test/client.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createPetStoreClient,
  type PetStoreClientOptions,
  PetStoreError,
  PetStoreNetworkError,
} from "../src/index.ts";
import {
  after,
  apiError,
  dropConnection,
  json,
  type ScriptedServer,
  startScriptedServer,
} from "./scripted-server.ts";

const rex = { id: 7, name: "Rex", categoryId: 1, status: "available" };
const rateHeaders = (remaining: number) => ({
  "x-ratelimit-limit": "60",
  "x-ratelimit-remaining": String(remaining),
  "x-ratelimit-reset": "1767225660",
});

describe("client against a scripted server", () => {
  let server: ScriptedServer;
  let waits: number[];

  const client = (options: Partial<PetStoreClientOptions> = {}) =>
    createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: "pet_test_secret",
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
      ...options,
    });

  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    waits = [];
  });

  it("sends the key as a bearer token and returns the animal", async () => {
    server.script(json(200, rex));
    expect(await client().getPet(7)).toEqual(rex);
    expect(server.requests).toMatchObject([
      { method: "GET", url: "/v1/pets/7", headers: { authorization: "Bearer pet_test_secret" } },
    ]);
  });

  it("retries a 503 after its Retry-After and a 429 after its Retry-After", async () => {
    server.script(
      apiError(503, "service_unavailable", { "retry-after": "5" }),
      apiError(429, "rate_limited", { "retry-after": "2" }),
      json(200, [rex]),
    );
    const page = await client().listPets({ status: "available" });
    expect(page.pets).toEqual([rex]);
    expect(waits).toEqual([5_000, 2_000]);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((r) => r.url === "/v1/pets?status=available")).toBe(true);
  });

  it("backs off exponentially with jitter when there is no Retry-After, then gives up", async () => {
    server.script(
      apiError(503, "service_unavailable"),
      apiError(503, "service_unavailable"),
      apiError(503, "service_unavailable"),
      apiError(503, "service_unavailable"),
    );
    const error = await client({ retry: { baseDelayMs: 100 } })
      .listPets()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PetStoreError);
    expect(error).toMatchObject({ code: "service_unavailable", status: 503, attempts: 4 });
    // random() = 0.5 of 100, 200, 400 ms.
    expect(waits).toEqual([50, 100, 200]);
    expect(server.requests).toHaveLength(4);
  });

  it("does not retry a ban that outlasts the budget, and says how long it lasts", async () => {
    server.script(apiError(429, "key_banned", { "retry-after": "900", ...rateHeaders(0) }));
    const error = (await client()
      .listPets()
      .catch((e: unknown) => e)) as PetStoreError;
    expect(error).toMatchObject({ code: "key_banned", status: 429, retryAfter: 900, attempts: 1 });
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("waits out a short ban exactly, never retrying before its Retry-After", async () => {
    server.script(apiError(429, "key_banned", { "retry-after": "3" }), json(200, []));
    expect((await client().listPets()).pets).toEqual([]);
    expect(waits).toEqual([3_000]);
  });

  it("does not retry errors a retry cannot fix, and carries the Error body fields", async () => {
    const details = [{ path: "name", message: "must not be empty" }];
    server.script(
      json(
        400,
        { code: "validation_failed", message: "Invalid name: must not be empty", status: 400, details },
        { "x-request-id": "abc-123" },
      ),
    );
    const error = (await client()
      .createPet({ name: "", categoryId: 1 })
      .catch((e: unknown) => e)) as PetStoreError;
    expect(error).toBeInstanceOf(PetStoreError);
    expect(error.toJSON()).toEqual({
      code: "validation_failed",
      message: "Invalid name: must not be empty",
      status: 400,
      details,
      requestId: "abc-123",
    });
    expect(server.requests).toHaveLength(1);
  });

  it("throws a call outside the key's scopes (403 insufficient_scope) at once, never retrying it", async () => {
    server.script(
      apiError(403, "insufficient_scope", {
        "www-authenticate": 'Bearer realm="petstore", error="insufficient_scope", scope="pets:write"',
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": "59",
        "x-ratelimit-reset": "1767225660",
      }),
    );
    const error = (await client()
      .createPet({ name: "Rex", categoryId: 1 })
      .catch((e: unknown) => e)) as PetStoreError;
    expect(error).toBeInstanceOf(PetStoreError);
    expect(error).toMatchObject({ code: "insufficient_scope", status: 403, attempts: 1 });
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("reports an error response that is not an Error body as unexpected_response", async () => {
    server.script((res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>Bad Gateway</html>");
    });
    const error = (await client()
      .listPets()
      .catch((e: unknown) => e)) as PetStoreError;
    expect(error).toMatchObject({ code: "unexpected_response", status: 502 });
    expect(error.message).toContain("Bad Gateway");
  });

  it("retries a dropped connection, then reports a network error when every attempt fails", async () => {
    server.script(dropConnection, json(200, [rex]));
    expect((await client().listPets()).pets).toEqual([rex]);
    expect(waits).toEqual([250]);

    server.script(dropConnection, dropConnection);
    const error = await client({ retry: { maxAttempts: 2 } })
      .listPets()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PetStoreNetworkError);
    expect(error).toMatchObject({ attempts: 2, timedOut: false, operation: "listPets" });
  });

  it("retries a timed-out createPet with the same Idempotency-Key, and each call gets its own key", async () => {
    // The second answer comes at once; the bound leaves it a busy machine's stalls.
    server.script(after(2_000, json(201, rex)), json(201, rex, { "idempotent-replayed": "true" }));
    const c = client({ timeoutMs: 600 });
    // The answer that got through replays the first attempt's creation, and says so.
    expect(await c.createPet({ name: "Rex", categoryId: 1 })).toEqual({ pet: rex, replayed: true, etag: "" });
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map((r) => r.headers["idempotency-key"]);
    expect(first).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(second).toBe(first);
    expect(JSON.parse(server.requests[1]?.body ?? "")).toEqual({ name: "Rex", categoryId: 1 });

    server.script(json(201, rex), json(201, rex));
    expect(await c.createPet({ name: "Rex", categoryId: 1 })).toEqual({
      pet: rex,
      replayed: false,
      etag: "",
    });
    await c.createPet({ name: "Rex", categoryId: 1 });
    const keys = server.requests.slice(2).map((r) => r.headers["idempotency-key"]);
    expect(new Set([...keys, first]).size).toBe(3);
  });

  it("uses the Idempotency-Key it is given, and retries while an earlier attempt is in flight (409)", async () => {
    server.script(apiError(409, "idempotency_key_in_use", { "retry-after": "1" }), json(201, rex));
    await client().createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "order-4711" });
    expect(server.requests.map((r) => r.headers["idempotency-key"])).toEqual(["order-4711", "order-4711"]);
    expect(waits).toEqual([1_000]);
  });

  it("treats an option given as undefined as not given", async () => {
    server.script(apiError(503, "service_unavailable"), json(200, [rex]));
    const c = client({ timeoutMs: undefined, retry: { maxAttempts: undefined, baseDelayMs: undefined } });
    expect((await c.listPets({}, { signal: undefined })).pets).toEqual([rex]);
    expect(waits).toEqual([250]);
  });

  it("keeps the rate-limit state of the last response that reported one", async () => {
    const c = client();
    expect(c.rateLimit).toBeUndefined();
    server.script(json(200, [], rateHeaders(41)));
    await c.listPets();
    expect(c.rateLimit).toEqual({ limit: 60, remaining: 41, reset: 1767225660 });
    server.script(apiError(429, "rate_limited", { "retry-after": "900", ...rateHeaders(0) }));
    await expect(c.listPets()).rejects.toThrow(PetStoreError);
    expect(c.rateLimit).toEqual({ limit: 60, remaining: 0, reset: 1767225660 });
    server.script(json(200, []));
    await c.listPets();
    expect(c.rateLimit?.remaining).toBe(0);
  });

  it("stops at once when the caller aborts during a wait", async () => {
    const controller = new AbortController();
    server.script(apiError(503, "service_unavailable", { "retry-after": "30" }), json(200, []));
    const c = client({
      sleep: (ms, signal) => {
        waits.push(ms);
        controller.abort(new Error("user gave up"));
        return Promise.reject(signal?.reason);
      },
    });
    await expect(c.listPets({}, { signal: controller.signal })).rejects.toThrow("user gave up");
    expect(server.requests).toHaveLength(1);
    // The reply meant for the retry is still queued: the next call gets it.
    expect((await c.listPets()).pets).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it("follows Link rel=next through every page, sending the link's query to its own base URL", async () => {
    const link = (cursor: string) => ({
      link: `<https://api.elsewhere.example/v1/pets?limit=2&status=sold&cursor=${cursor}>; rel="next", <https://api.elsewhere.example/v1/pets>; rel="successor-version"`,
    });
    server.script(
      json(
        200,
        [
          { ...rex, id: 1 },
          { ...rex, id: 2 },
        ],
        link("c1"),
      ),
      json(
        200,
        [
          { ...rex, id: 3 },
          { ...rex, id: 4 },
        ],
        link("c%2C2"),
      ),
      json(200, [{ ...rex, id: 5 }]),
    );
    const ids: number[] = [];
    for await (const pet of client().pets.all({ status: "sold", limit: 2 })) ids.push(pet.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests.map((r) => r.url)).toEqual([
      "/v1/pets?status=sold&limit=2",
      "/v1/pets?cursor=c1&limit=2&status=sold",
      "/v1/pets?cursor=c%2C2&limit=2&status=sold",
    ]);
  });

  it("follows listCategories' Link rel=next through every page, and asks /me once", async () => {
    const link = { link: '<https://api.elsewhere.example/v1/categories?limit=2&cursor=k1>; rel="next"' };
    const dogs = { id: 1, name: "dogs" };
    const cats = { id: 2, name: "cats" };
    const me = {
      key: { prefix: "pet_test_abc", name: "Shop", scopes: ["pets:read"], expiresAt: null },
      plan: { name: "free", limits: { perMinute: 60, perDay: 1000 } },
      rateLimit: null,
    };
    server.script(json(200, [dogs, cats], link), json(200, [{ id: 3, name: "birds" }]), json(200, me));
    const names: string[] = [];
    for await (const category of client().categories.all({ limit: 2 })) names.push(category.name);
    expect(names).toEqual(["dogs", "cats", "birds"]);
    expect(await client().me()).toEqual(me);
    expect(server.requests.map((r) => r.url)).toEqual([
      "/v1/categories?limit=2",
      "/v1/categories?cursor=k1&limit=2",
      "/v1/me",
    ]);
  });

  it("changes an animal with If-Match and returns its new ETag; a stale tag is a precondition_failed at once", async () => {
    server.script(
      json(200, { ...rex, name: "Max" }, { etag: '"new"' }),
      apiError(412, "precondition_failed"),
    );
    expect(await client().pets.update(7, { name: "Max" }, { ifMatch: '"old"' })).toEqual({
      pet: { ...rex, name: "Max" },
      etag: '"new"',
    });
    expect(server.requests[0]).toMatchObject({
      method: "PATCH",
      url: "/v1/pets/7",
      headers: { "if-match": '"old"' },
    });
    expect(JSON.parse(server.requests[0]?.body ?? "")).toEqual({ name: "Max" });
    const error = await client()
      .pets.update(7, { status: null })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "precondition_failed", status: 412, attempts: 1 });
    expect(server.requests[1]?.headers["if-match"]).toBeUndefined();
  });

  it("places an order with an Idempotency-Key kept across retries, and never retries a conflict", async () => {
    const order = {
      id: 3,
      petId: 7,
      status: "placed",
      createdAt: "2026-11-29T10:00:00.000Z",
      holdUntil: "2026-11-29T10:30:00.000Z",
      closedAt: null,
    };
    server.script(apiError(503, "service_unavailable", { "retry-after": "1" }), json(201, order));
    expect(await client().orders.create({ petId: 7 })).toEqual({ order, replayed: false });
    const [first, second] = server.requests.map((r) => r.headers["idempotency-key"]);
    expect(first).toBeTruthy();
    expect(second).toBe(first);
    server.script(apiError(409, "conflict"));
    const error = await client()
      .orders.create({ petId: 7, holdMinutes: 5 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "conflict", status: 409, attempts: 1 });
    server.script(
      json(200, { ...order, status: "completed" }),
      json(200, { ...order, status: "cancelled" }),
      json(200, order),
    );
    expect((await client().orders.complete(3)).status).toBe("completed");
    expect((await client().orders.cancel(3)).status).toBe("cancelled");
    expect(await client().orders.get(3)).toEqual(order);
    expect(server.requests.slice(-3).map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /v1/store/orders/3/complete",
      "POST /v1/store/orders/3/cancel",
      "GET /v1/store/orders/3",
    ]);
  });

  it("follows listOrders' Link rel=next with its filters, and reads the inventory", async () => {
    const link = {
      link: '<https://api.elsewhere.example/v1/store/orders?limit=1&status=placed&petId=7&cursor=o1>; rel="next"',
    };
    const order = (id: number) => ({
      id,
      petId: 7,
      status: "placed",
      createdAt: "2026-11-29T10:00:00.000Z",
      holdUntil: "2026-11-29T10:30:00.000Z",
      closedAt: null,
    });
    const inventory = { available: 3, pending: 1, sold: 2, unset: 0 };
    server.script(json(200, [order(2)], link), json(200, [order(1)]), json(200, inventory));
    const ids: number[] = [];
    for await (const o of client().orders.all({ limit: 1, status: "placed", petId: 7 })) ids.push(o.id);
    expect(ids).toEqual([2, 1]);
    expect(await client().inventory()).toEqual(inventory);
    expect(server.requests.map((r) => r.url)).toEqual([
      "/v1/store/orders?limit=1&status=placed&petId=7",
      "/v1/store/orders?cursor=o1&limit=1&status=placed&petId=7",
      "/v1/store/inventory",
    ]);
  });
});
