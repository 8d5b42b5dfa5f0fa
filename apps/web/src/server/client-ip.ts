/**
 * Client IP for anonymous rate limiting and the sign-in throttle (docs/contract.md section 3). The app's Node
 * server (server.ts, and the test harness) computes it from the socket, or, only when TRUST_PROXY is set, from
 * the right-most X-Forwarded-For entry (the address the trusted proxy saw; `trustedForwardedValue`, the rule
 * X-Forwarded-Proto and X-Forwarded-Host are read by too), and passes it to the app in
 * `CLIENT_IP_HEADER`, overwriting anything a client sent under that name, on every request it serves; the app
 * reads the address from that header only (`trustedClientIp`).
 *
 * IPv4-mapped IPv6 addresses are given as IPv4.
 */
import type { IncomingMessage } from "node:http";

export const CLIENT_IP_HEADER = "x-petstore-client-ip";

/**
 * How many proxies in front of the app are trusted when TRUST_PROXY is set: one, the operator's own, which
 * appends its entry to each X-Forwarded-* list after whatever the client sent.
 */
const TRUSTED_HOPS = 1;

/**
 * The one trusted-hop rule for the list-valued forwarding headers, X-Forwarded-For, X-Forwarded-Proto and
 * X-Forwarded-Host alike (their standard form, RFC 7239 `Forwarded`, lists one element per proxy the same way):
 * the entry the trusted proxy added, counted from the right, so that no entry a client put in front of it is
 * believed, and all three headers describe the same hop. Repeated header lines count as one list, in order.
 * Use only when TRUST_PROXY is set.
 * @returns the trimmed entry, or undefined when the header is absent or holds fewer entries.
 */
export function trustedForwardedValue(value: string | string[] | null | undefined): string | undefined {
  return (Array.isArray(value) ? value.join(",") : (value ?? ""))
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .at(-TRUSTED_HOPS);
}

/** The client address of `req`: socket address, or the trusted X-Forwarded-For hop when `trustProxy`. */
export function clientIpOf(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy ? trustedForwardedValue(req.headers["x-forwarded-for"]) : undefined;
  return forwarded ?? req.socket.remoteAddress ?? "unknown";
}

/**
 * Sets `CLIENT_IP_HEADER` on `req`, replacing any client-sent value, in both views of the headers: the parsed
 * `headers` and `rawHeaders`, from which @hono/node-server rebuilds a request's headers once something lists
 * or changes them (e.g. after reading the body); stamping only `headers` would then hand back the client's copy.
 */
export function stampClientIp(req: IncomingMessage, trustProxy: boolean): void {
  const ip = clientIpOf(req, trustProxy);
  req.headers[CLIENT_IP_HEADER] = ip;
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (raw[i]?.toLowerCase() === CLIENT_IP_HEADER) raw.splice(i, 2);
  }
  raw.push(CLIENT_IP_HEADER, ip);
}

/**
 * The client IP the app may believe for a request with `headers`: the server's stamp (`stampClientIp`), else
 * `unknown` (one shared bucket). IPv4-mapped IPv6 addresses are given as IPv4; at most 64 characters.
 */
export function trustedClientIp(headers: Pick<Headers, "get">): string {
  const ip = headers.get(CLIENT_IP_HEADER)?.trim();
  return ip ? ip.replace(/^::ffff:/, "").slice(0, 64) : "unknown";
}
