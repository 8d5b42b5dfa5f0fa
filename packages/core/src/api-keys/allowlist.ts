/**
 * A key's IP allowlist on the request path (docs/contract.md section 2, "IP allowlists"): compiled once when the
 * key is read into the verifier's cache, so a request costs one parse of its client address and a match per range,
 * and a client address seen lately costs a map look-up.
 */
import ipaddr from "ipaddr.js";
import { BoundedMap } from "../bounded-map.ts";

/** Whether a client address may use the key. */
export interface IpAllowlist {
  /** The entries, normalized (contracts' `IpAllowlist`). */
  readonly entries: readonly string[];
  /**
   * Whether `ip` (the resolved client address, `trustedClientIp`: IPv4-mapped IPv6 given as IPv4) is in one of
   * the entries; `unknown`, or anything that is no address, is not.
   */
  allows(ip: string): boolean;
}

/** Answers remembered per allowlist: the addresses a key calls from are few, and a lookup beats a parse. */
const REMEMBERED = 64;

/** Compiled lists by their entries, so that reading a key again does not parse its list again. */
const compiled = new BoundedMap<string, IpAllowlist | null>(4096);

/**
 * `compileAllowlist(entries)`, reused while the same entries are read again (a key's cache entry is read anew every
 * few seconds; compiling on each read cost about a tenth of a many-key response's CPU).
 */
export function compiledAllowlist(entries: readonly string[]): IpAllowlist | null {
  if (entries.length === 0) return null;
  const text = entries.join(" ");
  let list = compiled.get(text);
  if (list === undefined) {
    list = compileAllowlist(entries);
    compiled.set(text, list);
  }
  return list;
}

/**
 * `entries` (normalized addresses and CIDR ranges) as an `IpAllowlist`, or null when the list is empty (the key
 * may call from anywhere). An entry that no longer parses is skipped: it allows nothing.
 */
export function compileAllowlist(entries: readonly string[]): IpAllowlist | null {
  if (entries.length === 0) return null;
  const v4: [ipaddr.IPv4, number][] = [];
  const v6: [ipaddr.IPv6, number][] = [];
  for (const entry of entries) {
    try {
      const [address, bits] = entry.includes("/")
        ? ipaddr.parseCIDR(entry)
        : ((a) => [a, a.kind() === "ipv4" ? 32 : 128] as const)(ipaddr.parse(entry));
      if (address.kind() === "ipv4") v4.push([address as ipaddr.IPv4, bits]);
      else v6.push([address as ipaddr.IPv6, bits]);
    } catch {
      // skipped: see above
    }
  }
  const remembered = new Map<string, boolean>();
  const decide = (ip: string): boolean => {
    let address: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      address = ipaddr.process(ip);
    } catch {
      return false;
    }
    if (address.kind() === "ipv4") return v4.some((range) => (address as ipaddr.IPv4).match(range));
    return v6.some((range) => (address as ipaddr.IPv6).match(range));
  };
  return {
    entries: Object.freeze([...entries]),
    allows(ip) {
      let allowed = remembered.get(ip);
      if (allowed === undefined) {
        allowed = decide(ip);
        if (remembered.size >= REMEMBERED) remembered.clear();
        remembered.set(ip, allowed);
      }
      return allowed;
    },
  };
}
