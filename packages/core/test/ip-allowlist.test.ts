/** A key's compiled IP allowlist (api-keys/allowlist.ts; docs/contract.md section 2, "IP allowlists"). */
import { describe, expect, it } from "vitest";
import { compileAllowlist, compiledAllowlist } from "../src/api-keys/allowlist.ts";

describe("compileAllowlist", () => {
  it("is null for an empty list: the key may call from anywhere", () => {
    expect(compileAllowlist([])).toBeNull();
  });

  it("matches IPv4 addresses and ranges, and only those", () => {
    const list = compileAllowlist(["192.0.2.7", "198.51.100.0/24"]);
    expect(list?.allows("192.0.2.7")).toBe(true);
    expect(list?.allows("192.0.2.8")).toBe(false);
    expect(list?.allows("198.51.100.255")).toBe(true);
    expect(list?.allows("198.51.101.0")).toBe(false);
    // Asked again: the remembered answer is the same.
    expect(list?.allows("198.51.101.0")).toBe(false);
    expect(list?.allows("198.51.100.1")).toBe(true);
  });

  it("matches IPv6 ranges, an IPv4-mapped address as its IPv4, and never a family across", () => {
    const list = compileAllowlist(["2001:db8::/32", "203.0.113.5"]);
    expect(list?.allows("2001:db8:ffff::1")).toBe(true);
    expect(list?.allows("2001:db9::1")).toBe(false);
    expect(list?.allows("::ffff:203.0.113.5")).toBe(true);
    expect(list?.allows("::ffff:203.0.113.6")).toBe(false);
    expect(compileAllowlist(["0.0.0.0/0"])?.allows("2001:db8::1")).toBe(false);
    expect(compileAllowlist(["::/0"])?.allows("192.0.2.1")).toBe(false);
  });

  it("allows nothing that is no address", () => {
    const list = compileAllowlist(["0.0.0.0/0", "::/0"]);
    expect(list?.allows("unknown")).toBe(false);
    expect(list?.allows("")).toBe(false);
    expect(list?.allows("192.0.2.1")).toBe(true);
  });

  it("stays right past the addresses it remembers", () => {
    const list = compileAllowlist(["10.0.0.0/24"]);
    for (let i = 0; i < 300; i++) expect(list?.allows(`10.0.${i % 2}.${i % 250}`)).toBe(i % 2 === 0);
  });
});

describe("compiledAllowlist", () => {
  it("reuses the list compiled for the same entries, and compiles other entries anew", () => {
    const first = compiledAllowlist(["192.0.2.0/24", "2001:db8::/32"]);
    expect(compiledAllowlist(["192.0.2.0/24", "2001:db8::/32"])).toBe(first);
    const other = compiledAllowlist(["198.51.100.0/24"]);
    expect(other).not.toBe(first);
    expect(other?.allows("198.51.100.9")).toBe(true);
    expect(compiledAllowlist([])).toBeNull();
  });
});
