/**
 * The dashboard's page for "the database does not answer" (docs/contract.md section 4), and for "the dashboard
 * process is restarting" (dashboard.ts): a styled 503 with Retry-After, answered by server.ts itself
 * (http/router.ts), never Next's HTML 500. It needs no database, no
 * script and no asset, so it renders whatever is down; it carries the pages' security headers, with a policy
 * that allows nothing but its own inline style.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "@petstore/config";
import { DATABASE_RETRY_AFTER_SECONDS } from "@petstore/core/errors";
import { baseSecurityHeaders } from "../security-headers.ts";
import { isHttps } from "../trpc/http.ts";
import { writeErrorAnswer } from "./error-answer.ts";

/**
 * Where a page that lost the database mid-render sends the browser (trpc/page-auth.ts), with the page's own
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

const html = (cause: UnavailableCause, address: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="refresh" content="${DATABASE_RETRY_AFTER_SECONDS * 3}; url=${escapeHtml(address)}" />
    <title>Temporarily unavailable · Pet Store admin</title>
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
      <h1>The dashboard is temporarily unavailable</h1>
      <p>${REASONS[cause]} Nothing you entered has been lost.</p>
      <p>This page reloads itself in a few seconds; you can also <a href="${escapeHtml(address)}">try again now</a>.</p>
    </main>
  </body>
</html>
`;

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
    },
    body: html(cause, sameSiteAddress(address)),
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
