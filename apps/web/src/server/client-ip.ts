/**
 * Client IP for anonymous rate limiting and the sign-in throttle (docs/contract.md section 3), and the one
 * trusted-proxy rule for X-Forwarded-For, -Proto and -Host (TRUST_PROXY, packages/config). The app's Node server
 * (server.ts, and the test harness) walks X-Forwarded-For from the right with `proxy-addr`, starting at the socket
 * address, for as long as the address it stands on is a trusted proxy (one of the first N hops, or an address in
 * the configured list): the first address that is not is the client. It passes the app that address in
 * `CLIENT_IP_HEADER` and the number of trusted proxies passed in `TRUSTED_HOPS_HEADER`, overwriting anything a
 * client sent under those names, on every request it serves; the app reads them from there only
 * (`trustedClientIp`, `trustedForwardedValue`).
 *
 * IPv4-mapped IPv6 addresses are given as IPv4.
 */
import type { IncomingMessage } from "node:http";
import type { Config } from "@petstore/config";
import proxyaddr from "proxy-addr";

export const CLIENT_IP_HEADER = "x-petstore-client-ip";

/** How many proxies' X-Forwarded-* entries the server believed for a request (a decimal count; 0: none). */
export const TRUSTED_HOPS_HEADER = "x-petstore-trusted-hops";

/** TRUST_PROXY as packages/config gives it: a hop count (0: none) or a list of addresses and CIDR ranges. */
export type TrustProxy = Config["trustProxy"];

/** A `proxy-addr` trust function: whether the `i`-th address from the right (0: the socket's) is a trusted proxy. */
type TrustFunction = (address: string, i: number) => boolean;

const compiled = new WeakMap<readonly string[], TrustFunction>();

/** `trust` as a `proxy-addr` trust function, compiled once per list. */
function trustFunction(trust: TrustProxy): TrustFunction {
  if (typeof trust === "number") return (_address, i) => i < trust;
  let fn = compiled.get(trust);
  if (!fn) {
    fn = proxyaddr.compile([...trust]);
    compiled.set(trust, fn);
  }
  return fn;
}

/** What the trusted proxies in front of `req` say about its client. */
export interface ForwardedClient {
  /** The client address: the socket's when no proxy is trusted, else the first untrusted X-Forwarded-For hop. */
  ip: string;
  /**
   * How many trusted proxies the request passed through: the X-Forwarded-For entries believed, plus the proxy the
   * walk stopped on when it is trusted (it reported no client, as a proxy that sends only X-Forwarded-Proto).
   */
  hops: number;
}

/** The client of `req` under `trust` (see the module comment). */
export function forwardedClient(req: IncomingMessage, trust: TrustProxy): ForwardedClient {
  // On every request: without trusted proxies, no forwarding header needs parsing.
  if (trust === 0) return { ip: req.socket.remoteAddress || "unknown", hops: 0 };
  const trusted = trustFunction(trust);
  const addresses = proxyaddr.all(req, trusted);
  const last = addresses.length - 1;
  // Every address but the last was a trusted proxy (the walk went past it). The last is one too when the list ran
  // out on it (a trusted proxy that sent no X-Forwarded-For, e.g. the socket's), so its X-Forwarded-Proto counts.
  const address = addresses[last];
  const hops = last + (address !== undefined && trusted(address, last) ? 1 : 0);
  return { ip: address || "unknown", hops };
}

/** The client address of `req` under `trust` (`forwardedClient`). */
export function clientIpOf(req: IncomingMessage, trust: TrustProxy): string {
  return forwardedClient(req, trust).ip;
}

/**
 * Sets `CLIENT_IP_HEADER` and `TRUSTED_HOPS_HEADER` on `req`, replacing any client-sent value, in both views of the
 * headers: the parsed `headers` and `rawHeaders`, from which @hono/node-server rebuilds a request's headers once
 * something lists or changes them (e.g. after reading the body); stamping only `headers` would then hand back the
 * client's copy.
 */
export function stampClientIp(req: IncomingMessage, trust: TrustProxy): void {
  const { ip, hops } = forwardedClient(req, trust);
  stamp(req, CLIENT_IP_HEADER, ip);
  stamp(req, TRUSTED_HOPS_HEADER, String(hops));
}

function stamp(req: IncomingMessage, name: string, value: string): void {
  req.headers[name] = value;
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (raw[i]?.toLowerCase() === name) raw.splice(i, 2);
  }
  raw.push(name, value);
}

/**
 * The client IP the app may believe for a request with `headers`: the server's stamp (`stampClientIp`), else
 * `unknown` (one shared bucket). IPv4-mapped IPv6 addresses are given as IPv4; at most 64 characters.
 */
export function trustedClientIp(headers: Pick<Headers, "get">): string {
  const ip = headers.get(CLIENT_IP_HEADER)?.trim();
  return ip ? ip.replace(/^::ffff:/, "").slice(0, 64) : "unknown";
}

/**
 * The entry of the list-valued forwarding header `name` (X-Forwarded-Proto or X-Forwarded-Host) that the outermost
 * trusted proxy added: with N trusted hops (`TRUSTED_HOPS_HEADER`), the N-th entry from the right (the first, when
 * there are fewer), the same hop whose X-Forwarded-For entry named the client, so that no entry a client put in
 * front of it is believed and all three headers describe the same hop. Repeated header lines count as one list,
 * in order.
 * @returns the trimmed entry, or undefined when no proxy is trusted or the header is absent.
 */
export function trustedForwardedValue(
  headers: Pick<Headers, "get">,
  name: "x-forwarded-proto" | "x-forwarded-host",
): string | undefined {
  const hops = Number(headers.get(TRUSTED_HOPS_HEADER));
  if (!Number.isInteger(hops) || hops < 1) return undefined;
  const entries = (headers.get(name) ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Fewer entries than trusted proxies: every entry is a trusted proxy's (not all of them append), the first
  // the outermost's.
  return entries.at(-Math.min(hops, entries.length));
}
