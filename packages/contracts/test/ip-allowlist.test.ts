/** IP allowlist entries (docs/contract.md section 2, "IP allowlists"): what is taken, how it is stored. */
import { describe, expect, it } from "vitest";
import { allowlistEntries, IpAllowlist, normalizeAllowlistEntry } from "../src/ip-allowlist.ts";

describe("normalizeAllowlistEntry", () => {
  it.each([
    ["192.0.2.7", "192.0.2.7"],
    [" 192.0.2.7/32 ", "192.0.2.7"],
    ["192.0.2.77/24", "192.0.2.0/24"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8:0:0::1", "2001:db8::1"],
    ["2001:db8::1/128", "2001:db8::1"],
    ["2001:db8:1:2:3::/48", "2001:db8:1::/48"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["::ffff:192.0.2.0/120", "192.0.2.0/24"],
  ])("takes %s as %s", (entry, stored) => {
    expect(normalizeAllowlistEntry(entry)).toBe(stored);
  });

  it.each([
    "",
    "example.com",
    "192.0.2",
    "0x7f.1",
    "192.0.2.256",
    "192.0.2.0/33",
    "192.0.2.0/",
    "192.0.2.0/2a",
    "2001:db8::/129",
    "fe80::1%eth0",
    "::ffff:192.0.2.0/64",
  ])("refuses %j", (entry) => {
    expect(normalizeAllowlistEntry(entry)).toBeUndefined();
  });
});

describe("IpAllowlist", () => {
  it("normalizes, drops duplicates and keeps the order given", () => {
    expect(IpAllowlist.parse(["10.0.0.9/8", "2001:db8::/32", "10.1.2.3/8", "192.0.2.1"])).toEqual([
      "10.0.0.0/8",
      "2001:db8::/32",
      "192.0.2.1",
    ]);
    expect(IpAllowlist.parse([])).toEqual([]);
  });

  it("names a bad entry in plain words and holds at most 50 entries", () => {
    const bad = IpAllowlist.safeParse(["192.0.2.0/24", "nope"]);
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain('"nope" is not an IPv4 or IPv6 address or CIDR range');
    const many = Array.from({ length: 51 }, (_, i) => `10.0.${i}.0/24`);
    expect(IpAllowlist.safeParse(many).success).toBe(false);
  });

  it("reads a field's text separated by lines, commas and blanks", () => {
    expect(allowlistEntries("192.0.2.1,\n 2001:db8::/32  10.0.0.0/8\n")).toEqual([
      "192.0.2.1",
      "2001:db8::/32",
      "10.0.0.0/8",
    ]);
  });
});
