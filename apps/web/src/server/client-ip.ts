/**
 * Client IP for anonymous rate limiting (PRODUCT.md section 3). The Node server (server.ts, and the test
 * harness) computes it from the socket — or, only when TRUST_PROXY is set, from the right-most
 * X-Forwarded-For entry (the address the trusted proxy saw) — and passes it to the app in
 * `CLIENT_IP_HEADER`, overwriting anything a client sent under that name. (Next's own x-forwarded-for
 * keeps a client-sent value, so it cannot be trusted.)
 */
import type { IncomingMessage } from "node:http";

export const CLIENT_IP_HEADER = "x-petstore-client-ip";

/** The client address of `req`: socket address, or the last X-Forwarded-For hop when `trustProxy`. */
export function clientIpOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? ""))
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    const last = hops.at(-1);
    if (last) return last;
  }
  return req.socket.remoteAddress ?? "unknown";
}

/** Sets `CLIENT_IP_HEADER` on `req` (replacing any client-sent value). */
export function stampClientIp(req: IncomingMessage, trustProxy: boolean): void {
  req.headers[CLIENT_IP_HEADER] = clientIpOf(req, trustProxy);
}
