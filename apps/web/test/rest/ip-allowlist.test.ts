/**
 * IP allowlists of keys (docs/contract.md section 2, "IP allowlists"): a key with one answers only calls from its
 * addresses and ranges, IPv4 and IPv6, judged on the client address the contract resolves (the socket's, or
 * X-Forwarded-For's only as TRUST_PROXY says); a call from elsewhere is 403 `ip_not_allowed` with the address's
 * rate-limit headers, costs the key nothing, and a change applies at once on the instance that made it.
 */
import { describe, expect, it } from "vitest";
import { type Ctx, expectError, useServer } from "./support.ts";

const issue = async (t: Ctx, allowedIps: string[], perMinute = 10) => {
  const issued = await t.s.rt.apiKeys.create(
    { name: `allowlist ${allowedIps.join(" ")}`, plan: "enterprise", perMinute, perDay: 1_000 },
    "test",
  );
  if (allowedIps.length) await t.s.rt.apiKeys.changeAllowlist(issued.id, allowedIps, "test");
  return issued;
};

const from = (t: Ctx, key: string, forwardedFor?: string) =>
  t.call("listPets", "/v1/pets?limit=1", {
    headers: { ...t.auth(key), ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
  });

describe("IP allowlists behind a trusted proxy (TRUST_PROXY=1)", () => {
  const t: Ctx = useServer("postgres", { env: { TRUST_PROXY: "1" } });

  it("admits IPv4 clients in the list and refuses others with 403 ip_not_allowed", async () => {
    const { key, prefix } = await issue(t, ["192.0.2.7", "198.51.100.0/24"]);
    expect((await from(t, key, "192.0.2.7")).status).toBe(200);
    expect((await from(t, key, "198.51.100.200")).status).toBe(200);
    const refused = await from(t, key, "192.0.2.8");
    const e = expectError(refused, 403, "ip_not_allowed");
    expect(e.message).toBe(
      `API key ${prefix}… may not be used from 192.0.2.8: the address is outside the key's IP allowlist. An admin can change the list.`,
    );
    // The refusal carries the headers of the address's anonymous budget, which it counted against.
    expect(refused.headers.get("x-ratelimit-limit")).toBe("1000000");
  });

  it("admits IPv6 clients in a range, an IPv4-mapped address as its IPv4, and refuses the rest", async () => {
    const { key } = await issue(t, ["2001:db8::/32", "203.0.113.5"]);
    expect((await from(t, key, "2001:db8:abcd::1")).status).toBe(200);
    expect((await from(t, key, "::ffff:203.0.113.5")).status).toBe(200);
    expectError(await from(t, key, "2001:db9::1"), 403, "ip_not_allowed");
    expectError(await from(t, key, "203.0.113.6"), 403, "ip_not_allowed");
  });

  it("believes only the hop the trusted proxy added", async () => {
    const { key } = await issue(t, ["192.0.2.7"]);
    // The client put the allowed address first; the proxy appended the real one, which is judged.
    expectError(await from(t, key, "192.0.2.7, 198.51.100.9"), 403, "ip_not_allowed");
    expect((await from(t, key, "198.51.100.9, 192.0.2.7")).status).toBe(200);
  });

  it("never counts a refused call against the key's windows", async () => {
    const { key } = await issue(t, ["192.0.2.0/24"], 3);
    for (let i = 0; i < 5; i++) expectError(await from(t, key, "198.51.100.1"), 403, "ip_not_allowed");
    const allowed = await from(t, key, "192.0.2.1");
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("x-ratelimit-limit")).toBe("3");
    expect(allowed.headers.get("x-ratelimit-remaining")).toBe("2");
  });

  it("applies a change at once on this instance, and an empty list lifts it", async () => {
    const { id, key } = await issue(t, []);
    expect((await from(t, key, "198.51.100.1")).status).toBe(200);
    await t.s.rt.apiKeys.changeAllowlist(id, ["192.0.2.0/24"], "test");
    expectError(await from(t, key, "198.51.100.1"), 403, "ip_not_allowed");
    await t.s.rt.apiKeys.changeAllowlist(id, [], "test");
    expect((await from(t, key, "198.51.100.1")).status).toBe(200);
  });

  it("keeps the list when the key is rolled", async () => {
    const { id } = await issue(t, ["192.0.2.0/24"]);
    const rolled = await t.s.rt.apiKeys.roll(id, 60, "test");
    expectError(await from(t, rolled.key, "198.51.100.1"), 403, "ip_not_allowed");
    expect((await from(t, rolled.key, "192.0.2.9")).status).toBe(200);
  });
});

describe("IP allowlists without a trusted proxy (TRUST_PROXY=0)", () => {
  const t: Ctx = useServer("postgres");

  it("judges the socket's address and ignores X-Forwarded-For", async () => {
    const { key } = await issue(t, ["192.0.2.7"]);
    // A client cannot name an allowed address itself.
    expectError(await from(t, key, "192.0.2.7"), 403, "ip_not_allowed");
    const local = await issue(t, ["127.0.0.0/8"]);
    expect((await from(t, local.key, "192.0.2.99")).status).toBe(200);
  });
});
