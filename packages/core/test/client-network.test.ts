/**
 * Anonymous budgets per client network (docs/contract.md section 3 "Rate limits"; docs/operations.md
 * `CLIENT_IPV6_PREFIX`, `CLIENT_IPV4_PREFIX`): the API's, the dashboard's and /metrics' budgets, like the
 * sign-in throttle, count an IPv6 client as its /64 and an IPv4 client as its address, through one function
 * (`clientNetwork`), so that a host cannot multiply its budget by the addresses of its own network.
 */
import { loadConfig } from "@petstore/config";
import { describe, expect, it } from "vitest";
import { clientNetwork, DEFAULT_CLIENT_PREFIXES } from "../src/client-network.ts";
import { createMemoryStore, createRateLimiter, type RateLimitConfig } from "../src/ratelimit/index.ts";
import { signInBuckets } from "../src/sessions/throttle.ts";

const silent = { warn() {}, error() {} };

const config: RateLimitConfig = {
  ...loadConfig({ LOG_LEVEL: "silent", PGLITE_DIR: "memory://" }).rateLimit,
  anonymousPerMinute: 2,
  dashboardAnonymousPerMinute: 2,
  metricsScrapesPerMinute: 2,
  anonymousRefusalDelayMs: 0,
};

describe("clientNetwork", () => {
  it("keys IPv6 by /64, IPv4 by the address, IPv4-mapped IPv6 as IPv4, anything else as it is", () => {
    const key = (ip: string) => clientNetwork(ip, DEFAULT_CLIENT_PREFIXES);
    expect(key("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(key("2001:DB8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(key("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(key("fe80::1%eth0")).toBe("fe80::/64");
    expect(key("192.0.2.1")).toBe("192.0.2.1");
    expect(key("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(key("::ffff:c000:201")).toBe("192.0.2.1");
    expect(key("unknown")).toBe("unknown");
  });

  it("takes the prefixes from the configuration", () => {
    const prefixes = loadConfig({ CLIENT_IPV6_PREFIX: "48", CLIENT_IPV4_PREFIX: "24" }).clientPrefixes;
    expect(prefixes).toEqual({ ipv4: 24, ipv6: 48 });
    expect(clientNetwork("2001:db8:1:2::1", prefixes)).toBe("2001:db8:1::/48");
    expect(clientNetwork("192.0.2.77", prefixes)).toBe("192.0.2.0/24");
    expect(clientNetwork("::ffff:192.0.2.77", prefixes)).toBe("192.0.2.0/24");
    expect(clientNetwork("2001:db8::1", { ipv4: 32, ipv6: 128 })).toBe("2001:db8::1");
    expect(() => loadConfig({ CLIENT_IPV6_PREFIX: "129" })).toThrow(/CLIENT_IPV6_PREFIX/);
    expect(() => loadConfig({ CLIENT_IPV4_PREFIX: "7" })).toThrow(/CLIENT_IPV4_PREFIX/);
  });
});

describe.each(["api", "dashboard", "metrics"] as const)("the %s budget", (scope) => {
  const limiter = () =>
    createRateLimiter({
      config: { ...config, prefix: `cn-${scope}` },
      logger: silent,
      store: createMemoryStore(),
    });

  it("is shared by the addresses of one /64 and not by neighbouring /64s", async () => {
    const rl = limiter();
    expect((await rl.checkAnonymous("2001:db8:a:1::1", scope)).allowed).toBe(true);
    expect((await rl.checkAnonymous("2001:db8:a:1::2", scope)).allowed).toBe(true);
    expect(await rl.checkAnonymous("2001:db8:a:1:ffff:ffff:ffff:ffff", scope)).toMatchObject({
      allowed: false,
      code: "rate_limited",
    });
    // The neighbouring /64s on either side have budgets of their own.
    expect((await rl.checkAnonymous("2001:db8:a:2::1", scope)).allowed).toBe(true);
    expect((await rl.checkAnonymous("2001:db8:a:0:ffff:ffff:ffff:ffff", scope)).allowed).toBe(true);
    await rl.close();
  });

  it("counts an IPv4-mapped IPv6 address as its IPv4 address", async () => {
    const rl = limiter();
    expect((await rl.checkAnonymous("198.51.100.9", scope)).allowed).toBe(true);
    expect((await rl.checkAnonymous("::ffff:198.51.100.9", scope)).allowed).toBe(true);
    expect((await rl.checkAnonymous("::ffff:c633:6409", scope)).allowed).toBe(false);
    expect((await rl.checkAnonymous("198.51.100.10", scope)).allowed).toBe(true);
    await rl.close();
  });
});

it("the API budget gives a refund back to the network's bucket", async () => {
  const rl = createRateLimiter({
    config: { ...config, prefix: "cn-refund" },
    logger: silent,
    store: createMemoryStore(),
  });
  const first = await rl.checkAnonymous("2001:db8:b:1::1");
  await rl.checkAnonymous("2001:db8:b:1::2");
  await rl.refundAnonymous("2001:db8:b:1::3", first);
  expect((await rl.checkAnonymous("2001:db8:b:1::4")).allowed).toBe(true);
  expect((await rl.checkAnonymous("2001:db8:b:1::5")).allowed).toBe(false);
  await rl.close();
});

it("the sign-in throttle keys its per-client buckets by the same networks", () => {
  const keys = (ip: string, prefixes = DEFAULT_CLIENT_PREFIXES) =>
    signInBuckets({ email: "a@example.com", ip }, prefixes).map((bucket) => bucket.key);
  expect(keys("2001:db8:c:1::7")).toEqual(keys("2001:db8:c:1:ffff::1"));
  expect(keys("2001:db8:c:1::7")).toContain("client:2001:db8:c:1::/64");
  expect(keys("::ffff:192.0.2.7")).toContain("client:192.0.2.7");
  expect(keys("2001:db8:c:1::7", { ipv4: 24, ipv6: 48 })).toContain("client:2001:db8:c::/48");
  expect(keys("192.0.2.7", { ipv4: 24, ipv6: 48 })).toContain("client:192.0.2.0/24");
});
