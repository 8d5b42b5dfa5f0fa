/**
 * Which URLs webhooks may call (docs/contract.md section 6, "Safety"): `https` only, and only hosts whose every
 * address is a public unicast address (ipaddr.js's classification: not private, loopback, link-local, unique
 * local, carrier-grade NAT, multicast, reserved, NAT64, 6to4, Teredo, …; for IPv6, also inside the global
 * unicast space 2000::/3, so IPv4-compatible `::a.b.c.d` and unassigned space are refused). Checked when an
 * endpoint is saved (`checkTarget`) and
 * again when each connection is made (`guardedLookup` and `blockedLiteral`), so a name that resolves to a
 * public address at save time and to a private one later (DNS rebinding) still cannot reach the private
 * network. WEBHOOKS_ALLOW_PRIVATE_TARGETS (development and tests) lifts both rules.
 */
import dns from "node:dns";
import net from "node:net";
import { AppError } from "@petstore/contracts";
import ipaddr from "ipaddr.js";

/** How long the save-time check waits for DNS. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** The global unicast IPv6 space (RFC 4291 section 2.4, IANA "IPv6 Address Space"); the rest is not routable. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * IPv4-compatible IPv6 addresses (::/96, RFC 4291 section 2.5.5.1, deprecated). Matched with node's own address
 * parser: ipaddr.js reads the text `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`, and so as the IPv4 address,
 * while the system connects to `::a.b.c.d` itself (and prints DNS answers in ::/96 in that form).
 */
const IPV4_COMPATIBLE = new net.BlockList();
IPV4_COMPATIBLE.addSubnet("::", 96, "ipv6");

/**
 * True for a public unicast address: an IPv4 address ipaddr.js classifies as `unicast`, an IPv4-mapped IPv6
 * address (::ffff:0:0/96) judged as the IPv4 address it carries, or an IPv6 address classified `unicast` inside
 * 2000::/3. Every other range is refused, those that carry an IPv4 address a gateway would forward to included
 * (IPv4-compatible ::/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48 (RFC 6052, RFC 8215), 6to4 2002::/16
 * (RFC 3056), Teredo 2001::/32 (RFC 4380), IPv4-translated ::ffff:0:0:0/96 (RFC 6145)). False for anything that
 * is not an IP address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  if (net.isIPv6(address) && IPV4_COMPATIBLE.check(address, "ipv6")) return false;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== "unicast") return false;
  return parsed.kind() === "ipv4" || parsed.match(GLOBAL_UNICAST_V6);
}

/** What a member is told of a host that is not public, at save time and per attempt. */
export const NOT_ALLOWED = "this host is not allowed: webhooks call public addresses only";

/** What a member is told of a host without an answer (no address, no DNS answer in time), at save time and per attempt. */
export const NOT_REACHED = "this host could not be reached";

/**
 * Raised (as a connection error) when a webhook would connect to an address that is not public. Its message is
 * shown to the endpoint's account (the delivery log): it says "not allowed" and never the address a name
 * resolves to, which would map the private network for whoever can save a URL.
 */
export class BlockedAddressError extends Error {
  readonly code = "EWEBHOOKBLOCKED";
  constructor() {
    super(NOT_ALLOWED);
    this.name = "BlockedAddressError";
  }
}

/** The URL's host without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

const invalidUrl = (message: string) =>
  new AppError("validation_failed", `Invalid url: ${message}`, [{ path: "url", message }]);

/**
 * Checks that `rawUrl` may be saved as an endpoint: https (http too with `allowPrivate`), and a host whose
 * addresses are all public (not checked with `allowPrivate`).
 * @returns the URL as it will be stored (normalised by the WHATWG URL parser).
 * @throws AppError validation_failed (path `url`) saying what is wrong.
 */
export async function checkTarget(rawUrl: string, allowPrivate: boolean): Promise<string> {
  const url = new URL(rawUrl);
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:"))
    throw invalidUrl("must start with https://");
  if (allowPrivate) return url.href;
  const host = hostOf(url);
  const addresses = net.isIP(host) ? [host] : await resolve(host);
  if (addresses.some((a) => !isPublicAddress(a))) throw invalidUrl(NOT_ALLOWED);
  return url.href;
}

async function resolve(host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const found = await Promise.race([
      dns.promises.lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), RESOLVE_TIMEOUT_MS);
      }),
    ]);
    if (found.length === 0) throw new Error("no address");
    return found.map((a) => a.address);
  } catch {
    throw invalidUrl(NOT_REACHED);
  } finally {
    clearTimeout(timer);
  }
}

/** When `url`'s host is an IP literal that may not be called, the error to fail the attempt with. */
export function blockedLiteral(url: URL, allowPrivate: boolean): BlockedAddressError | undefined {
  const host = hostOf(url);
  if (allowPrivate || !net.isIP(host) || isPublicAddress(host)) return undefined;
  return new BlockedAddressError();
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls connections (and so for an http(s).Agent) that resolves like `dns.lookup` and fails
 * the connection with `BlockedAddressError` when any address is not public. Node calls it for host names
 * only, so IP literals are checked with `blockedLiteral` before the request.
 * @param resolver the underlying look-up (tests pass one that answers like a rebinding DNS server).
 */
export function guardedLookup(resolver: typeof dns.lookup = dns.lookup) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolver(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as dns.LookupAddress[];
      const blocked = list.find((a) => !isPublicAddress(a.address));
      if (blocked) return callback(new BlockedAddressError(), []);
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}
