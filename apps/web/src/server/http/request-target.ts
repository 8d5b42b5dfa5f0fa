/**
 * The request target as the routes read it (RFC 9112 section 3.2), checked before any route sees it:
 * - origin-form (`/path?query`): as it is;
 * - absolute-form (`GET http://host/path`): answered as the path it names on this server, whatever the host
 *   (RFC 9112 section 3.2.2), so it is never redirected to another host;
 * - asterisk-form (`OPTIONS *`): a question about the server as a whole, answered with the methods it serves;
 * - an HTTP/1.1 request without Host, or a path that is not valid percent-encoding, is a 400 `invalid_request`.
 */
import type { IncomingMessage } from "node:http";
import { type Problem, problems } from "@petstore/contracts";

/** `*` for `OPTIONS *`, a problem for a target the server cannot read, else undefined (req.url made origin-form). */
export function checkTarget(req: IncomingMessage): Problem | "*" | undefined {
  const url = req.url ?? "/";
  if (url === "*") {
    return req.method === "OPTIONS" ? "*" : problems.malformedRequest("Only OPTIONS may ask about '*'.");
  }
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && !req.headers.host) {
    return problems.malformedRequest("An HTTP/1.1 request needs a Host header (RFC 9112 section 3.2).");
  }
  if (!url.startsWith("/")) {
    let absolute: URL;
    try {
      absolute = new URL(url);
    } catch {
      return problems.malformedRequest("The request target is not a path or an absolute http(s) URL.");
    }
    if (absolute.protocol !== "http:" && absolute.protocol !== "https:") {
      return problems.malformedRequest("The request target is not a path or an absolute http(s) URL.");
    }
    req.url = `${absolute.pathname}${absolute.search}`;
  }
  const target = req.url ?? "/";
  // Only a path with escapes can be badly encoded; most requests skip the decode.
  if (!target.includes("%")) return undefined;
  const q = target.indexOf("?");
  try {
    decodeURIComponent(q < 0 ? target : target.slice(0, q));
  } catch {
    return problems.malformedRequest("The request path is not valid percent-encoding.");
  }
  return undefined;
}
