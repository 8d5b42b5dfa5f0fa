/**
 * Bearer authentication on every operation (docs/interface.md "Authentication"; docs/contract.md sections 1 and 2): missing,
 * malformed, bad checksum, unknown, revoked, expired and other-deployment keys all answer 401
 * `unauthorized` with an RFC 6750 challenge, and nothing secret is ever sent back.
 */
import { displayPrefix, generateApiKey, hashApiKey } from "@petstore/core";
import { databaseOf } from "@petstore/core/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CallResult, type Ctx, expectError, type OperationId, seedPets, useServer } from "./support.ts";

const CHALLENGE = 'Bearer realm="petstore"';

interface Operation {
  id: OperationId;
  /** The status a valid key gets. */
  ok: number;
  send(t: Ctx, headers: Record<string, string>): Promise<CallResult>;
}

let petId = 0;

const OPERATIONS: Operation[] = [
  { id: "listPets", ok: 200, send: (t, headers) => t.call("listPets", "/v1/pets?limit=1", { headers }) },
  {
    id: "createPet",
    ok: 201,
    send: (t, headers) =>
      t.call("createPet", "/v1/pets", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ name: "Auth", categoryId: t.s.categoryIds[0] }),
      }),
  },
  { id: "getPet", ok: 200, send: (t, headers) => t.call("getPet", `/v1/pets/${petId}`, { headers }) },
  {
    id: "listOrders",
    ok: 200,
    send: (t, headers) => t.call("listOrders", "/v1/store/orders", { headers }),
  },
  {
    id: "getInventory",
    ok: 200,
    send: (t, headers) => t.call("getInventory", "/v1/store/inventory", { headers }),
  },
];

const listPets = OPERATIONS[0] as Operation;

/** Flips the last character of `key` (a valid shape with a wrong checksum). */
const badChecksum = (key: string) => key.slice(0, -1) + (key.endsWith("a") ? "b" : "a");

function expectInvalidToken(r: CallResult, token?: string) {
  expectError(r, 401, "unauthorized");
  const challenge = r.headers.get("www-authenticate") ?? "";
  expect(challenge.startsWith(CHALLENGE)).toBe(true);
  expect(challenge).toContain('error="invalid_token"');
  if (token) expect(r.text).not.toContain(token);
}

describe("authentication (postgres)", () => {
  const t = useServer("postgres");

  beforeAll(async () => {
    [petId = 0] = await seedPets(t.s, 1);
  });

  afterEach(() => t.s.setNow(new Date()));

  describe.each(OPERATIONS)("$id", (op) => {
    it("works with the issued key", async () => {
      expect((await op.send(t, t.auth())).status).toBe(op.ok);
    });

    it("answers 401 without Authorization, with a bare Bearer challenge", async () => {
      const before = await t.petCount();
      const r = await op.send(t, {});
      expectError(r, 401, "unauthorized");
      expect(r.headers.get("www-authenticate")).toBe(CHALLENGE);
      expect(await t.petCount()).toBe(before);
    });

    it("answers 401 invalid_token for malformed credentials", async () => {
      const valid = t.s.key;
      const malformed = [
        "",
        "Bearer",
        "Bearer ",
        `Basic ${Buffer.from(`user:${valid}`).toString("base64")}`,
        `Token ${valid}`,
        valid,
        `Bearer ${valid} extra`,
        `Bearer ${valid}x`,
        `Bearer ${valid.slice(0, -1)}`,
        `Bearer ${valid.toUpperCase()}`,
        `Bearer ${valid.replace("pet_test_", "pet_prod_")}`,
        "Bearer pet_test_",
        "Bearer abc",
        `Bearer ${"x".repeat(5000)}`,
      ];
      const before = await t.petCount();
      for (const header of malformed) {
        const r = await op.send(t, { authorization: header });
        expectInvalidToken(r, valid);
      }
      expect(await t.petCount()).toBe(before);
    });

    it("answers 401 invalid_token for a bad checksum, and for an unknown well-formed key", async () => {
      for (const token of [badChecksum(t.s.key), generateApiKey("staging")]) {
        expectInvalidToken(await op.send(t, t.auth(token)), token);
      }
    });

    it("answers 401 invalid_token for a key of the other deployment, saying whose key it is", async () => {
      const live = generateApiKey("production");
      const r = await op.send(t, t.auth(live));
      expectInvalidToken(r, live);
      expect(expectError(r, 401, "unauthorized").message).toBe(
        "The API key is a production key (pet_live_…): it works only on production; this is staging, which takes pet_test_ keys.",
      );
    });

    it("accepts the scheme in any case and extra spaces", async () => {
      expect((await op.send(t, { authorization: `bearer ${t.s.key}` })).status).toBe(op.ok);
      expect((await op.send(t, { authorization: `BEARER   ${t.s.key}` })).status).toBe(op.ok);
    });
  });

  it("rejects a production key stored in the database when the deployment is staging", async () => {
    const live = generateApiKey("production");
    await databaseOf(t.s.rt).prisma.apiKey.create({
      data: {
        hash: hashApiKey(live),
        prefix: displayPrefix(live),
        name: "live",
        planName: "business",
        environment: "production",
        createdBy: "test",
      },
    });
    for (const op of OPERATIONS) expectInvalidToken(await op.send(t, t.auth(live)), live);
  });

  it("stops accepting a key revoked on this instance at once", async () => {
    const issued = await t.s.rt.apiKeys.create({ name: "to revoke", plan: "pro" }, "test");
    for (const op of OPERATIONS) expect((await op.send(t, t.auth(issued.key))).status).toBe(op.ok);
    await t.s.rt.apiKeys.revoke(issued.id, "test");
    for (const op of OPERATIONS) expectInvalidToken(await op.send(t, t.auth(issued.key)), issued.key);
  });

  it("stops accepting a key revoked elsewhere within 5 seconds", async () => {
    const issued = await t.s.rt.apiKeys.create({ name: "revoked elsewhere", plan: "pro" }, "test");
    const start = Date.now();
    t.s.setNow(new Date(start));
    expect((await listPets.send(t, t.auth(issued.key))).status).toBe(200);
    // Another instance revokes it: only the database changes, this instance's cache does not hear of it.
    await databaseOf(t.s.rt).prisma.apiKey.update({
      where: { id: issued.id },
      data: { revokedAt: new Date(start) },
    });
    t.s.setNow(new Date(start + 5_000));
    for (const op of OPERATIONS) expectInvalidToken(await op.send(t, t.auth(issued.key)), issued.key);
  });

  it("stops accepting a key at its expiry", async () => {
    const start = Date.now();
    t.s.setNow(new Date(start));
    const issued = await t.s.rt.apiKeys.create(
      { name: "expiring", plan: "free", expiresInSeconds: 60 },
      "test",
    );
    t.s.setNow(new Date(start + 59_000));
    for (const op of OPERATIONS) expect((await op.send(t, t.auth(issued.key))).status).toBe(op.ok);
    t.s.setNow(new Date(start + 60_000));
    for (const op of OPERATIONS) expectInvalidToken(await op.send(t, t.auth(issued.key)), issued.key);
    t.s.setNow(new Date(start + 86_400_000));
    expectInvalidToken(await listPets.send(t, t.auth(issued.key)), issued.key);
  });

  it("keeps an old key working during a roll's grace period, then rejects it", async () => {
    const start = Date.now();
    t.s.setNow(new Date(start));
    const old = await t.s.rt.apiKeys.create({ name: "rolled", plan: "pro" }, "test");
    const rolled = await t.s.rt.apiKeys.roll(old.id, 3600, "test");
    expect((await listPets.send(t, t.auth(old.key))).status).toBe(200);
    expect((await listPets.send(t, t.auth(rolled.key))).status).toBe(200);
    t.s.setNow(new Date(start + 3600_000));
    expectInvalidToken(await listPets.send(t, t.auth(old.key)), old.key);
    expect((await listPets.send(t, t.auth(rolled.key))).status).toBe(200);
  });

  it("needs no key for the OpenAPI document", async () => {
    const r = await t.call(null, "/v1/openapi.json");
    expect(r.status).toBe(200);
    expect(r.headers.get("www-authenticate")).toBeNull();
  });

  it("answers unknown paths (404) and other methods (405) without a key", async () => {
    expectError(await t.call(null, "/v1/unknown"), 404, "not_found");
    expectError(await t.call(null, "/v1/pets", { method: "DELETE" }), 405, "method_not_allowed");
  });

  it("never sends a key back, even in the error for a malformed one", async () => {
    const r = await t.call("listPets", "/v1/pets", { headers: { authorization: `Bearer ${t.s.key}zz` } });
    expectInvalidToken(r, t.s.key);
    expect(r.text).not.toContain(t.s.key.slice(9));
  });
});
