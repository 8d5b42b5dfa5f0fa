/**
 * The client network a request counts for in every budget kept per client (docs/contract.md section 3, "Rate
 * limits", and section 4, "Sign-in throttling"): the anonymous budgets of the API, the dashboard and /metrics
 * (ratelimit/) and the sign-in throttle (sessions/throttle.ts) all key by `clientNetwork`.
 *
 * An IPv6 client is its /64 by default (`CLIENT_IPV6_PREFIX`): the smallest block a provider hands to one
 * subscriber (RFC 6177), so that one host cannot turn the 2^64 addresses of its own network into as many
 * clients. An IPv4 client is its address by default (`CLIENT_IPV4_PREFIX` 32). An IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`, RFC 4291 section 2.5.5.2) counts as the IPv4 address. Addresses are parsed with ipaddr.js.
 */
import ipaddr from "ipaddr.js";

/** Prefix lengths, in bits, that make one client network (`Config["clientPrefixes"]`). */
export interface ClientPrefixes {
  /** 16 to 32; 32: every address is a client of its own. */
  ipv4: number;
  /** 32 to 128; 64: a subscriber's network (RFC 6177). */
  ipv6: number;
}

/** The prefixes of the configuration's defaults (`CLIENT_IPV4_PREFIX` 32, `CLIENT_IPV6_PREFIX` 64). */
export const DEFAULT_CLIENT_PREFIXES: Readonly<ClientPrefixes> = Object.freeze({ ipv4: 32, ipv6: 64 });

/** `parts` (each `width` bits) with every bit past the first `prefix` cleared. */
function masked(parts: readonly number[], width: number, prefix: number): number[] {
  return parts.map((part, i) => {
    const kept = Math.min(width, Math.max(0, prefix - i * width));
    return part & (((1 << width) - 1) << (width - kept));
  });
}

/**
 * `ip` as the key of its client network under `prefixes`: the address itself when the prefix is the
 * address's whole length (`192.0.2.1`, `2001:db8::1`), else the network in CIDR notation (`192.0.2.0/24`,
 * `2001:db8:1:2::/64`); IPv6 in RFC 5952 form, without a zone (RFC 4007). A value that is no IP address
 * (`unknown`) is returned as it is.
 */
export function clientNetwork(ip: string, prefixes: ClientPrefixes): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip);
  } catch {
    return ip;
  }
  if (address.kind() === "ipv4") {
    const v4 = address as ipaddr.IPv4;
    if (prefixes.ipv4 >= 32) return v4.toString();
    return `${new ipaddr.IPv4(masked(v4.octets, 8, prefixes.ipv4)).toString()}/${prefixes.ipv4}`;
  }
  const v6 = address as ipaddr.IPv6;
  const network = new ipaddr.IPv6(masked(v6.parts, 16, prefixes.ipv6)).toRFC5952String();
  return prefixes.ipv6 >= 128 ? network : `${network}/${prefixes.ipv6}`;
}
