/**
 * A key's IP allowlist (docs/contract.md section 2, "IP allowlists"): the client addresses and CIDR ranges, IPv4
 * (four-part decimal) and IPv6 (RFC 4291 section 2.2, RFC 4632 prefixes), from which the key may call; empty:
 * from anywhere. Entries are parsed with ipaddr.js and stored normalized, so one range is stored and shown one way.
 */
import ipaddr from "ipaddr.js";
import { typeMessage, z } from "./zod.ts";

/** The most entries an allowlist holds. */
export const MAX_ALLOWLIST_ENTRIES = 50;

/**
 * `entry` normalized: an address alone (`192.0.2.7`, `2001:db8::7`), else the network of a range in CIDR notation
 * with its host bits cleared (`192.0.2.0/24`, `2001:db8::/32`); an IPv4-mapped IPv6 address (RFC 4291 section
 * 2.5.5.2) as IPv4; IPv6 in RFC 5952 form. A full-length prefix is written as the address alone.
 * @returns the normalized entry, or undefined when it is no address or range.
 */
export function normalizeAllowlistEntry(entry: string): string | undefined {
  const text = entry.trim();
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  if (address.includes("%")) return undefined; // a zone (RFC 4007) names a link, not a client
  const isV4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!isV4 && !ipaddr.IPv6.isValid(address)) return undefined;
  const bitsText = slash < 0 ? undefined : text.slice(slash + 1);
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return undefined;
  let ip: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(address);
  let bits = bitsText === undefined ? (isV4 ? 32 : 128) : Number(bitsText);
  if (bits > (isV4 ? 32 : 128)) return undefined;
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) {
    if (bits < 96) return undefined; // a range wider than the mapped block mixes IPv6 addresses in
    ip = ip.toIPv4Address();
    bits -= 96;
  }
  const width = ip.kind() === "ipv4" ? 32 : 128;
  if (bits === width) return ip instanceof ipaddr.IPv6 ? ip.toRFC5952String() : ip.toString();
  const network = ipaddr.parse(
    ip.kind() === "ipv4"
      ? ipaddr.IPv4.networkAddressFromCIDR(`${ip.toString()}/${bits}`).toString()
      : ipaddr.IPv6.networkAddressFromCIDR(`${ip.toString()}/${bits}`).toString(),
  );
  return `${network instanceof ipaddr.IPv6 ? network.toRFC5952String() : network.toString()}/${bits}`;
}

/**
 * An allowlist as forms and procedures take it: up to `MAX_ALLOWLIST_ENTRIES` addresses or ranges, each
 * normalized (`normalizeAllowlistEntry`), duplicates dropped, in the order given. An empty list lifts the limit.
 */
export const IpAllowlist = z
  .array(z.string({ error: typeMessage("must be an address or a CIDR range") }).max(64), {
    error: typeMessage("must be a list of addresses and CIDR ranges"),
  })
  .max(MAX_ALLOWLIST_ENTRIES, { error: `may hold at most ${MAX_ALLOWLIST_ENTRIES} entries` })
  .transform((entries, ctx) => {
    const normalized: string[] = [];
    for (const entry of entries) {
      const value = normalizeAllowlistEntry(entry);
      if (value === undefined)
        ctx.addIssue({
          code: "custom",
          message: `"${entry.trim()}" is not an IPv4 or IPv6 address or CIDR range (e.g. 192.0.2.0/24, 2001:db8::/32)`,
        });
      else if (!normalized.includes(value)) normalized.push(value);
    }
    return normalized;
  });

/**
 * Parses the text of an allowlist field (entries separated by commas, blanks or new lines) into a list for
 * `IpAllowlist`.
 */
export const allowlistEntries = (text: string): string[] => text.split(/[\s,]+/).filter((s) => s !== "");
