/**
 * Failures inside the service (docs/contract.md section 1, Error body): an unexpected error is a JSON 500
 * `internal_error` naming the request id and revealing nothing internal (logged instead); a database that
 * cannot be reached is a 503 `service_unavailable` with Retry-After, and service resumes when it is back.
 * PostgreSQL is reached through a TCP proxy the test can cut. (PGlite closed under a running server:
 * pglite-smoke.test.ts.)
 */
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer } from "../support/harness.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";
import { type Ctx, ctxFor, expectError, expectNoLeak, expectUnavailable, seedPets } from "./support.ts";

const SECRET_MESSAGE =
  'relation "pets" violates SELECT * FROM api_keys WHERE hash = $1 at /srv/app/node_modules/x.js:1:2';

describe("errors (postgres)", () => {
  const t = {} as Ctx;
  const proxy = new TcpProxy(5432);
  let database: TemporaryDatabase | undefined;
  let petId = 0;

  beforeAll(async () => {
    await proxy.open();
    database = await createMigratedDatabase("petstore_rest_outage");
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const s = await startTestServer("postgres", { env: { DATABASE_URL: url.toString() }, migrated: true });
    Object.assign(t, await ctxFor(s));
    [petId = 0] = await seedPets(s, 2);
  });

  afterAll(async () => {
    await t.s?.close();
    await proxy.cut();
    await database?.drop();
  });

  afterEach(() => {
    vi.restoreAllMocks();
    t.s.setNow(new Date());
  });

  const send = {
    listPets: () => t.call("listPets", "/v1/pets", { headers: t.auth() }),
    createPet: (headers: Record<string, string> = {}) =>
      t.create({ name: "During failure", categoryId: t.s.categoryIds[0] }, headers),
    getPet: () => t.call("getPet", `/v1/pets/${petId}`, { headers: t.auth() }),
    listOrders: () => t.call("listOrders", "/v1/store/orders", { headers: t.auth() }),
    createOrder: () =>
      t.call("createOrder", "/v1/store/orders", {
        method: "POST",
        headers: { ...t.auth(), "content-type": "application/json" },
        body: JSON.stringify({ petId }),
      }),
    updatePet: () =>
      t.call("updatePet", `/v1/pets/${petId}`, {
        method: "PATCH",
        headers: { ...t.auth(), "content-type": "application/merge-patch+json" },
        body: JSON.stringify({ name: "During failure" }),
      }),
    getInventory: () => t.call("getInventory", "/v1/store/inventory", { headers: t.auth() }),
  };

  describe("unexpected errors", () => {
    it.each([
      ["listPets", "list"],
      ["createPet", "create"],
      ["getPet", "get"],
    ] as const)(
      "%s answers 500 internal_error without internals when the service throws",
      async (op, method) => {
        const log = vi.spyOn(t.s.rt.logger, "error");
        vi.spyOn(t.s.rt.pets, method).mockRejectedValue(new Error(SECRET_MESSAGE));
        const r = await send[op]();
        const e = expectError(r, 500, "internal_error");
        expectNoLeak(r);
        const requestId = r.headers.get("x-request-id") ?? "";
        expect(e.message).toContain(requestId);
        // Logged, with the request id, for whoever investigates.
        expect(log).toHaveBeenCalledWith(expect.objectContaining({ requestId }), expect.any(String));
      },
    );

    it("answers 500 when the idempotency store throws, and creates nothing", async () => {
      vi.spyOn(t.s.rt.idempotency, "run").mockRejectedValue(
        new TypeError("Cannot read properties of undefined (reading 'x')"),
      );
      const before = await t.petCount();
      const r = await send.createPet({ "idempotency-key": "err-1" });
      expectError(r, 500, "internal_error");
      expect(r.text).not.toContain("Cannot read");
      expect(await t.petCount()).toBe(before);
    });

    it("answers a JSON 500 even when something throws a value that is not an Error", async () => {
      vi.spyOn(t.s.rt.pets, "list").mockRejectedValue("boom: SELECT 1");
      const r = await send.listPets();
      expectError(r, 500, "internal_error");
      expectNoLeak(r);
      vi.spyOn(t.s.rt.pets, "get").mockRejectedValue({ sql: "SELECT 1", code: "XX000" });
      const r2 = await send.getPet();
      expectError(r2, 500, "internal_error");
      expectNoLeak(r2);
    });

    it("keeps serving after an unexpected error", async () => {
      vi.spyOn(t.s.rt.pets, "list").mockRejectedValueOnce(new Error("once"));
      expect((await send.listPets()).status).toBe(500);
      expect((await send.listPets()).status).toBe(200);
    });
  });

  describe("database outage", () => {
    it("answers 503 with Retry-After on every operation while the database is unreachable", async () => {
      expect((await send.listPets()).status).toBe(200);
      const before = await t.petCount();
      await proxy.cut();
      // Past the key cache, so that authentication itself needs the database.
      t.s.setNow(new Date(Date.now() + 5_000));
      expectUnavailable(await send.listPets());
      expectUnavailable(await send.createPet());
      expectUnavailable(await send.createPet({ "idempotency-key": "outage-1" }));
      expectUnavailable(await send.getPet());
      expectUnavailable(await send.listOrders());
      expectUnavailable(await send.createOrder());
      expectUnavailable(await send.updatePet());
      expectUnavailable(await send.getInventory());
      // Without a key no database is needed to answer: still 401.
      expectError(await t.call("listPets", "/v1/pets", {}), 401, "unauthorized");
      expectError(await t.call(null, "/v1/nowhere"), 404, "not_found");
      await proxy.open();
      expect((await send.listPets()).status).toBe(200);
      expect(await t.petCount()).toBe(before);
      const created = await send.createPet({ "idempotency-key": "outage-1" });
      expect(created.status).toBe(201);
      expect(created.headers.get("idempotent-replayed")).toBeNull();
      expect((await send.getPet()).status).toBe(200);
    });
  });
});
