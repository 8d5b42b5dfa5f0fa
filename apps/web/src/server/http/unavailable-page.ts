/**
 * The dashboard's page for "the database does not answer" (docs/contract.md section 4): a styled 503 with
 * Retry-After, answered by server.ts itself (http/router.ts), never Next's HTML 500. It needs no database, no
 * script and no asset, so it renders whatever is down; it carries the pages' security headers, with a policy
 * that allows nothing but its own inline style.
 */
import { DATABASE_RETRY_AFTER_SECONDS } from "@petstore/core/errors";
import { baseSecurityHeaders } from "../security-headers.ts";

/** Where a page that lost the database mid-render sends the browser (trpc/page-auth.ts). */
export const UNAVAILABLE_PATH = "/admin/unavailable";

const HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="refresh" content="${DATABASE_RETRY_AFTER_SECONDS * 3}; url=/admin" />
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
      <p>Its database is not answering right now. Nothing you entered has been lost.</p>
      <p>This page reloads itself in a few seconds; you can also <a href="/admin">try again now</a>.</p>
    </main>
  </body>
</html>
`;

const POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Status, headers and body of the page; `https` as security-headers.ts `baseSecurityHeaders` takes it. */
export function unavailablePage(https: boolean): {
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
    body: HTML,
  };
}
