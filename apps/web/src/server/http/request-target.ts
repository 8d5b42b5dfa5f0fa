/**
 * The request target as the routes read it (RFC 9112 section 3.2), decided once, before any route sees it: the
 * router's exemptions, roles and budgets and the handler it picks (the REST app, Next) all read the same path.
 * - origin-form (`/path?query`): as it is, but for the normalization below;
 * - absolute-form (`GET http://host/path`): answered as the path it names on this server, whatever the host
 *   (RFC 9112 section 3.2.2), so it is never redirected to another host;
 * - asterisk-form (`OPTIONS *`): a question about the server as a whole, answered with the methods it serves;
 * - percent-encoded unreserved characters in the path (`%5F`, `%2E`, `%76`...) are decoded (RFC 3986 sections
 *   2.3 and 6.2.2.2: the same URI, and producers must not create them), so no spelling of a prefix escapes its
 *   route;
 * - a 400 `invalid_request`: an HTTP/1.1 request without Host, or with more than one Host header (RFC 9112
 *   section 3.2: Node keeps the first and drops the others, while a proxy in front may have read the last); a path that is not valid percent-encoding; a path
 *   with a dot segment (`.` or `..`, also percent-encoded: RFC 3986 section 5.2.4), a backslash, or a fragment
 *   (`#`). These are refused rather than resolved: conforming clients (browsers, fetch, curl) resolve dot
 *   segments before they send a request, and Next and the REST adapter read targets with the WHATWG URL parser
 *   (`%2e` is a dot, `\` a slash, `#` ends the path), so a target the router read one way could be served
 *   another way; refused, there is nothing left to read two ways.
 * - an empty segment (`//`) is kept as sent, never merged: under /v1 it is a path the API does not have (404,
 *   docs/contract.md section 1), and Next answers it with a redirect to the merged path, which comes back as a
 *   request of its own.
 */
import type { IncomingMessage } from "node:http";
import { type Problem, problems } from "@petstore/contracts";

/** A path the handlers would read otherwise than as sent: a dot segment, a backslash, a fragment. */
const NOT_NORMAL = /\/\.\.?(?:\/|$)|[\\#]/;

/** A percent-encoded octet. */
const ESCAPE = /%[0-9A-Fa-f]{2}/g;

/** RFC 3986 section 2.3 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~". */
const isUnreserved = (code: number) =>
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x30 && code <= 0x39) ||
  code === 0x2d ||
  code === 0x2e ||
  code === 0x5f ||
  code === 0x7e;

/** `path` with its percent-encoded unreserved characters decoded (RFC 3986 section 6.2.2.2), others kept. */
function decodeUnreserved(path: string): string {
  return path.replace(ESCAPE, (octet) => {
    const code = Number.parseInt(octet.slice(1), 16);
    return isUnreserved(code) ? String.fromCharCode(code) : octet;
  });
}

/** Whether `raw` (IncomingMessage's `rawHeaders`: name, value, name, value, ...) names Host more than once. */
function repeatsHost(raw: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length !== 4 || name.toLowerCase() !== "host") continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/** The path and query of an absolute-form target as sent (`new URL` would resolve its dot segments). */
function originFormOf(url: string): string | undefined {
  const scheme = /^https?:\/\//i.exec(url);
  if (!scheme) return undefined;
  const start = url.slice(scheme[0].length).search(/[/?#\\]/);
  if (start < 0) return "/";
  const rest = url.slice(scheme[0].length + start);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/**
 * Reads `req`'s target and leaves `req.url` in origin-form, normalized as above.
 * @returns `*` for `OPTIONS *`, a problem (400, or a 400 for `*` with another method) for a target the routes
 * cannot read, else undefined.
 */
export function checkTarget(req: IncomingMessage): Problem | "*" | undefined {
  const url = req.url ?? "/";
  if (url === "*") {
    return req.method === "OPTIONS" ? "*" : problems.malformedRequest("Only OPTIONS may ask about '*'.");
  }
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && !req.headers.host) {
    return problems.malformedRequest("An HTTP/1.1 request needs a Host header (RFC 9112 section 3.2).");
  }
  if (repeatsHost(req.rawHeaders)) {
    return problems.malformedRequest("A request has one Host header, not several (RFC 9112 section 3.2).");
  }
  if (!url.startsWith("/")) {
    let absolute: URL | undefined;
    try {
      absolute = new URL(url);
    } catch {
      // answered below
    }
    const originForm = absolute && originFormOf(url);
    if (!originForm) {
      return problems.malformedRequest("The request target is not a path or an absolute http(s) URL.");
    }
    req.url = originForm;
  }
  const target = req.url ?? "/";
  const q = target.indexOf("?");
  let path = q < 0 ? target : target.slice(0, q);
  // Only a path with escapes can be badly encoded or spell an unreserved character; most requests skip both.
  if (path.includes("%")) {
    try {
      decodeURIComponent(path);
    } catch {
      return problems.malformedRequest("The request path is not valid percent-encoding.");
    }
    const decoded = decodeUnreserved(path);
    if (decoded !== path) {
      path = decoded;
      req.url = q < 0 ? path : path + target.slice(q);
    }
  }
  if (NOT_NORMAL.test(path)) {
    return problems.malformedRequest(
      "The request path has a '.' or '..' segment, a backslash or a fragment: send the path it resolves to (RFC 3986 section 5.2.4).",
    );
  }
  return undefined;
}
