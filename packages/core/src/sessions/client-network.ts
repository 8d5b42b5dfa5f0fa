/**
 * The network a sign-in attempt comes from, as the per-client throttle limits count it (docs/contract.md
 * section 4, "Sign-in throttling"): an IPv4 address is its own network; an IPv6 address counts as its /64,
 * the smallest block a provider hands to one subscriber (RFC 6177), so that one host cannot turn the 2^64
 * addresses of its own network into as many "clients". IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`)
 * count as the IPv4 address. Addresses are parsed with ipaddr.js.
 */
import ipaddr from "ipaddr.js";

/**
 * `ip` as a throttle key: `192.0.2.1` for IPv4 (and IPv4-mapped IPv6), `2001:db8:1:2::/64` for IPv6 (the
 * network in RFC 5952 form, zone dropped). A value that is no IP address (`unknown`) is returned as it is.
 */
export function clientNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toRFC5952String()}/64`;
}
