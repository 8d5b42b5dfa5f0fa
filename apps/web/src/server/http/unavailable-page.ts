/**
 * The dashboard's own pages for what stops a page load before Next: "the database does not answer" (docs/contract.md
 * section 4), "the dashboard process is restarting" (dashboard.ts), both a 503, and a page load refused (429, or a
 * 503 after waiting too long for a place: http/router.ts). Styled, with Retry-After, reloading themselves, answered
 * by server.ts itself, never Next's HTML 500 nor a JSON body in a browser. They need no database, no script and no
 * asset, so they render whatever is down; they carry the pages' security headers, with a policy that allows
 * nothing but their own inline style. They reload through the `Refresh` header (HTML's "refresh" pragma, as a
 * header), not a `<meta http-equiv="refresh">`: a timed refresh in the document is a WCAG 2.2.1 failure to axe.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "@petstore/config";
import { DATABASE_RETRY_AFTER_SECONDS } from "@petstore/core/errors";
import { baseSecurityHeaders } from "../security-headers.ts";
import { isHttps } from "../trpc/http.ts";
import { writeErrorAnswer } from "./error-answer.ts";

/**
 * Where a page that lost the database mid-render sends the browser (next-child/page-auth.ts), with the page's own
 * address in `next` (`unavailableAddress`).
 */
export const UNAVAILABLE_PATH = "/admin/unavailable";

/**
 * `target` (a request target: path and query) when it is an address on this site, else `/admin`: never an
 * absolute or protocol-relative URL (`//host`, `/\\host`), so the address cannot send the browser elsewhere.
 */
export function sameSiteAddress(target: string | null | undefined): string {
  return target && /^\/(?![/\\])/.test(target) && !/[\s\\]/.test(target) ? target : "/admin";
}

/** `/admin/unavailable?next=<address>`: the unavailable page that returns to `address` (path and query). */
export const unavailableAddress = (address: string | null | undefined): string =>
  `${UNAVAILABLE_PATH}?next=${encodeURIComponent(sameSiteAddress(address))}`;

/**
 * The address a request to the unavailable page returns to: its `next` parameter when that is an address on
 * this site, else `/admin`. For any other page request: its own target.
 */
export function returnAddress(target: string): string {
  const url = new URL(target, "http://unused");
  if (url.pathname !== UNAVAILABLE_PATH) return sameSiteAddress(target);
  return sameSiteAddress(url.searchParams.get("next"));
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` as HTML text or a quoted attribute's value. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/** Why the dashboard cannot answer: its database, or its own process (restarting). */
export type UnavailableCause = "database" | "dashboard";

const REASONS: Record<UnavailableCause, string> = {
  database: "Its database is not answering right now.",
  dashboard: "It is restarting right now.",
};

/** What a page says: `title` (the document's), `heading`, `text` (HTML), and when and where it reloads. */
interface PageText {
  title: string;
  heading: string;
  text: string;
  reloadSeconds: number;
  address: string;
}

const html = ({ title, heading, text, reloadSeconds, address }: PageText) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    <style>
      body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f8f9fa;
        font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #212529; }
      main { max-width: 32rem; padding: 2rem; background: #fff; border: 1px solid #dee2e6; border-radius: 8px; }
      h1 { font-size: 1.5rem; margin: 0 0 0.75rem; }
      p { line-height: 1.5; margin: 0 0 0.75rem; }
      a { color: #1864ab; }
    </style>
  </head>
  <body>
    <main>
      <h1>${escapeHtml(heading)}</h1>
      <p>${text}</p>
      <p>This page reloads itself in ${reloadSeconds === 1 ? "a second" : `${reloadSeconds} seconds`}; you can also <a href="${escapeHtml(address)}">try again now</a>.</p>
    </main>
  </body>
</html>
`;

/**
 * The `Refresh` header that reloads `address` (an address on this site) after `seconds`: the address as URL
 * syntax, percent-encoded ASCII, since a header carries no other characters.
 */
function refreshHeader(seconds: number, address: string): string {
  const url = new URL(address, "http://unused");
  return `${seconds}; url=${url.pathname}${url.search}`;
}

const POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Status, headers and body of the page; `https` as security-headers.ts `baseSecurityHeaders` takes it, `cause`
 * what the page names as the reason (default: the database), `address` the page (path and query) its reload and
 * its "try again" load (default `/admin`; anything but an address on this site is `/admin`).
 */
export function unavailablePage(
  https: boolean,
  cause: UnavailableCause = "database",
  address = "/admin",
): {
  status: 503;
  headers: Record<string, string>;
  body: string;
} {
  return {
    status: 503,
    headers: {
      ...baseSecurityHeaders(https),
      "Content-Security-Policy": POLICY,
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS),
      Refresh: refreshHeader(DATABASE_RETRY_AFTER_SECONDS * 3, sameSiteAddress(address)),
    },
    body: html({
      title: "Temporarily unavailable · Pet Store admin",
      heading: "The dashboard is temporarily unavailable",
      text: `${REASONS[cause]} Nothing you entered has been lost.`,
      reloadSeconds: DATABASE_RETRY_AFTER_SECONDS * 3,
      address: sameSiteAddress(address),
    }),
  };
}

/** A page request of a browser (not the dashboard's JSON API, not Next's data requests), by path (no query). */
export const isPageRequest = (req: IncomingMessage, path: string): boolean =>
  isPageOrNavigation(req, path) && !("rsc" in req.headers);

/**
 * A page request, or Next's request for a page's content on a navigation inside the dashboard (`rsc` header),
 * by path (no query).
 */
export const isPageOrNavigation = (req: IncomingMessage, path: string): boolean =>
  (req.method === "GET" || req.method === "HEAD") && !path.startsWith("/api/");

/** Whether `req` reached the deployment over HTTPS (trpc/http.ts `isHttps`). */
export const requestIsHttps = (req: IncomingMessage, config: Pick<Config, "publicBaseUrl">): boolean =>
  isHttps({ get: (name) => (req.headers[name] as string | undefined) ?? null }, config);

/**
 * Answers `req` with the dashboard's 503 for `cause`: this page for a browser's page request (reloading the
 * address asked for, or the one `/admin/unavailable?next=` names), else the JSON Error body
 * (`service_unavailable`), both with Retry-After. Next answers a navigation's 503 by loading the address as a
 * page, so a person who clicks a link during an outage gets this page at the link's address.
 */
export function answerUnavailable(
  req: IncomingMessage,
  res: ServerResponse,
  config: Pick<Config, "publicBaseUrl">,
  cause: UnavailableCause,
): void {
  if (isPageRequest(req, (req.url ?? "/").split("?")[0] ?? "/")) {
    const page = unavailablePage(requestIsHttps(req, config), cause, returnAddress(req.url ?? "/"));
    res.writeHead(page.status, page.headers).end(req.method === "HEAD" ? undefined : page.body);
    return;
  }
  writeErrorAnswer(
    res,
    {
      code: "service_unavailable",
      message: `The dashboard ${cause === "database" ? "cannot reach its database" : "is restarting"}. Retry after ${DATABASE_RETRY_AFTER_SECONDS} s.`,
      headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
    },
    req.headers,
  );
}

/** Whether `req` is a browser's page load: a page request (`isPageRequest`) whose Accept names text/html. */
export const isPageLoad = (req: IncomingMessage, path: string): boolean =>
  isPageRequest(req, path) && /\btext\/html\b/i.test(String(req.headers.accept ?? ""));

/** Why a dashboard request is refused before it reaches the dashboard (http/router.ts). */
export interface Refusal {
  /** 429: a budget or the pool's share or queue; 503: waited too long for a place. */
  status: 429 | 503;
  retryAfter: number;
  /** The JSON Error body's message. */
  message: string;
  /** What the page says (one sentence). */
  reason: string;
  /** Headers beside Retry-After (the RateLimit fields of a budget). */
  headers?: Record<string, string>;
}

/**
 * Answers a refused dashboard request: a browser's page load (`isPageLoad`) gets a styled page that reloads the
 * address asked for after `retryAfter` seconds, any other request (the JSON API, Next's data requests, scripts)
 * the JSON Error body (`rate_limited` or `service_unavailable`); both with Retry-After and `refusal.headers`.
 */
export function answerRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  config: Pick<Config, "publicBaseUrl">,
  refusal: Refusal,
): void {
  const headers = { ...refusal.headers, "Retry-After": String(refusal.retryAfter) };
  if (!isPageLoad(req, (req.url ?? "/").split("?")[0] ?? "/")) {
    writeErrorAnswer(
      res,
      {
        code: refusal.status === 429 ? "rate_limited" : "service_unavailable",
        message: refusal.message,
        headers,
      },
      req.headers,
    );
    return;
  }
  const address = returnAddress(req.url ?? "/");
  const body = html({
    title: `${refusal.status === 429 ? "Too many requests" : "Busy"} · Pet Store`,
    heading: "Please wait a moment",
    text: escapeHtml(refusal.reason),
    reloadSeconds: refusal.retryAfter,
    address,
  });
  res
    .writeHead(refusal.status, {
      ...baseSecurityHeaders(requestIsHttps(req, config)),
      "Content-Security-Policy": POLICY,
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(Buffer.byteLength(body)),
      "Cache-Control": "no-store",
      Refresh: refreshHeader(refusal.retryAfter, address),
      ...headers,
    })
    .end(req.method === "HEAD" ? undefined : body);
}
