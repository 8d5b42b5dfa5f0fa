/**
 * GET /v1/me (getMe), an addition to the interface (docs/contract.md section 1, "GET /v1/me (getMe)"): each key
 * sees itself only (prefix, name, scopes, expiry, plan and effective limits), never a secret or a hash; its minute
 * and day windows are those of the answer's rate-limit headers and shrink by one per request of any operation;
 * any valid key may ask (no scope), a revoked or expired one gets listPets' 401; the typed client calls it.
 */
import { createHash } from "node:crypto";
import { createPetStoreClient } from "@petstore/client";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CallResult, type ErrorBody, expectError, useServer } from "./support.ts";

interface Window {
  limit: number;
  remaining: number;
  resetsAt: string;
}
interface Me {
  key: { prefix: string; name: string; scopes: string[]; expiresAt: string | null };
  account: { id: string; name: string } | null;
  plan: { name: string; limits: { perMinute: number; perDay: number; perMonth: number | null } };
  rateLimit: { minute: Window; day: Window; month: Window | null } | null;
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** `RateLimit: "minute";r=12;t=34, "day";r=870;t=50211` as remaining requests by window name. */
const remainingOf = (r: CallResult) =>
  Object.fromEntries(
    [...(r.headers.get("ratelimit") ?? "").matchAll(/"(\w+)";r=(\d+)/g)].map((m) => [m[1], Number(m[2])]),
  );

describe("getMe (postgres)", () => {
  const t = useServer("postgres");
  /** A Pro key that expires, reading only, and an Enterprise key with every scope and custom limits. */
  const keys = { pro: { id: "", key: "", prefix: "" }, enterprise: { id: "", key: "", prefix: "" } };
  let expiresAt = "";

  beforeAll(async () => {
    const pro = await t.s.rt.apiKeys.create(
      { name: "Shop front", plan: "pro", expiresInSeconds: 30 * 86_400, scopes: ["pets:read"] },
      "test",
    );
    const enterprise = await t.s.rt.apiKeys.create(
      { name: "Warehouse", plan: "enterprise", perMinute: 500, perDay: 20_000 },
      "test",
    );
    keys.pro = pro;
    keys.enterprise = enterprise;
    expiresAt = pro.expiresAt as string;
  });

  afterEach(() => t.s.setNow(new Date()));

  const me = (headers: Record<string, string>) => t.call("getMe", "/v1/me", { headers });

  it("names the consumer account that holds the key", async () => {
    const account = await t.s.rt.accounts.create(
      { name: "Corner Shop", plan: "business", ownerEmail: "owner@corner.example" },
      "test",
    );
    const issued = await t.s.rt.apiKeys.createInAccount(account.id, { name: "Till" }, "test");
    const r = await me(t.auth(issued.key));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      key: { name: "Till" },
      account: { id: account.id, name: "Corner Shop" },
      plan: { name: "business", limits: { perMinute: 1000, perDay: 100_000 } },
    });
  });

  it("describes each key to itself only: prefix, name, scopes, expiry, plan and effective limits", async () => {
    const pro = await me(t.auth(keys.pro.key));
    const enterprise = await me(t.auth(keys.enterprise.key));
    expect(pro.status).toBe(200);
    expect(enterprise.status).toBe(200);
    expect(pro.body).toMatchObject({
      key: { prefix: keys.pro.prefix, name: "Shop front", scopes: ["pets:read"], expiresAt },
      plan: { name: "pro", limits: { perMinute: 300, perDay: 10_000 } },
    });
    expect((pro.body as Me).key.expiresAt).toMatch(RFC3339_UTC);
    expect(enterprise.body).toMatchObject({
      key: {
        prefix: keys.enterprise.prefix,
        name: "Warehouse",
        scopes: ["pets:read", "pets:write", "orders:read", "orders:write"],
        expiresAt: null,
      },
      plan: { name: "enterprise", limits: { perMinute: 500, perDay: 20_000, perMonth: null } },
    });
    expect((pro.body as Me).account).toBeNull();
    for (const [own, other] of [
      [pro, keys.enterprise],
      [enterprise, keys.pro],
    ] as const) {
      expect(own.text).not.toContain(other.prefix);
      expect(own.text).not.toContain(other.id);
    }
    expect(pro.text).not.toContain("Warehouse");
    expect(enterprise.text).not.toContain("Shop front");
  });

  it("never answers the secret, its hash or the key's id", async () => {
    for (const { key, id } of [keys.pro, keys.enterprise]) {
      const r = await me(t.auth(key));
      expect(Object.keys(r.body as object).sort()).toEqual(["account", "key", "plan", "rateLimit"]);
      expect(Object.keys((r.body as Me).key).sort()).toEqual(["expiresAt", "name", "prefix", "scopes"]);
      for (const secret of [key, key.slice(12), createHash("sha256").update(key).digest("hex"), id])
        expect(r.text).not.toContain(secret);
    }
  });

  it("reports the windows of its own rate-limit headers, one request fewer after each call of any operation", async () => {
    // One instant for the three calls, so that no window turns between them; a key of its own, whose window's
    // entry in the store begins here (the store expires entries by the real clock, which the frozen one does not
    // stop).
    const fresh = await t.s.rt.apiKeys.create({ name: "Windows", plan: "pro" }, "test");
    t.s.setNow(new Date());
    const first = await me(t.auth(fresh.key));
    const { minute, day } = (first.body as Me).rateLimit as { minute: Window; day: Window };
    expect({ minute: minute.remaining, day: day.remaining }).toEqual(remainingOf(first));
    expect(minute.limit).toBe(300);
    expect(day.limit).toBe(10_000);
    // X-RateLimit-* describe the window with the fewest requests left: the minute here.
    expect(Number(first.headers.get("x-ratelimit-remaining"))).toBe(minute.remaining);
    expect(Date.parse(minute.resetsAt) / 1000).toBe(Number(first.headers.get("x-ratelimit-reset")));
    expect(day.resetsAt).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);

    const second = (await me(t.auth(fresh.key))).body as Me;
    expect(second.rateLimit?.minute.remaining).toBe(minute.remaining - 1);
    expect(second.rateLimit?.day.remaining).toBe(day.remaining - 1);
    expect((await t.call("listPets", "/v1/pets", { headers: t.auth(fresh.key) })).status).toBe(200);
    const third = (await me(t.auth(fresh.key))).body as Me;
    expect(third.rateLimit?.minute.remaining).toBe(minute.remaining - 3);
    expect(third.rateLimit?.day.remaining).toBe(day.remaining - 3);
  });

  it("needs no scope: a key holding only pets:write may ask about itself", async () => {
    const writeOnly = await t.s.rt.apiKeys.create(
      { name: "Writer", plan: "free", scopes: ["pets:write"] },
      "test",
    );
    const r = await me(t.auth(writeOnly.key));
    expect(r.status).toBe(200);
    expect((r.body as Me).key).toMatchObject({ name: "Writer", scopes: ["pets:write"] });
  });

  it("answers a missing, revoked or expired key with listPets' 401", async () => {
    const expectSameAsListPets = async (headers: Record<string, string>) => {
      const e = expectError(await me(headers), 401, "unauthorized");
      expect(e).toEqual((await t.call("listPets", "/v1/pets", { headers })).body as ErrorBody);
    };
    await expectSameAsListPets({});
    const revoked = await t.s.rt.apiKeys.create({ name: "to revoke", plan: "pro" }, "test");
    expect((await me(t.auth(revoked.key))).status).toBe(200);
    await t.s.rt.apiKeys.revoke(revoked.id, "test");
    await expectSameAsListPets(t.auth(revoked.key));

    const start = Date.now();
    t.s.setNow(new Date(start));
    const expiring = await t.s.rt.apiKeys.create(
      { name: "expiring", plan: "free", expiresInSeconds: 60 },
      "test",
    );
    expect(((await me(t.auth(expiring.key))).body as Me).key.expiresAt).toBe(expiring.expiresAt);
    t.s.setNow(new Date(start + 60_000));
    await expectSameAsListPets(t.auth(expiring.key));
  });

  it("is documented in the OpenAPI document with bearer security and no scope", () => {
    const paths = t.doc.paths as Record<string, Record<string, { operationId: string; security: unknown }>>;
    expect(paths["/me"]?.get?.operationId).toBe("getMe");
    expect(paths["/me"]?.get?.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(paths["/me"] ?? {})).toEqual(["get"]);
  });

  it("is called by the typed client, which keeps the answer's rate-limit state", async () => {
    const client = createPetStoreClient({
      baseUrl: "https://api.test.example/v1",
      apiKey: keys.enterprise.key,
      fetch: (request) => {
        const url = new URL(request.url);
        return t.s.fetch(`${url.pathname}${url.search}`, { headers: request.headers });
      },
    });
    const answer = await client.me();
    expect(answer.key).toMatchObject({ prefix: keys.enterprise.prefix, name: "Warehouse" });
    expect(answer.plan.limits).toEqual({ perMinute: 500, perDay: 20_000, perMonth: null });
    expect(client.rateLimit?.remaining).toBe(answer.rateLimit?.minute.remaining);
  });
});
