/**
 * Security headers of the pages (the dashboard under /admin, the API reference at /docs, redirects and 404
 * pages), set by proxy.ts. Every response: `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'` (no framing, so
 * no clickjacking), `X-Content-Type-Options: nosniff`, `Referrer-Policy: same-origin`, and
 * `Strict-Transport-Security` when the request came over HTTPS (see `isHttps`).
 *
 * Content Security Policy (CSP Level 3):
 * - dashboard pages: scripts only with this response's nonce (Next puts it on its own scripts, read from the
 *   request's CSP header) and what they load ('strict-dynamic'); `'unsafe-eval'` only in development (React's
 *   dev tooling needs it, production does not). Styles: own files, and elements carrying the nonce (Mantine
 *   gets it through `getStyleNonce`); inline `style` attributes are allowed, which Mantine and the charts set
 *   on elements and which cannot carry a nonce.
 * - /docs (Swagger UI): scripts from this origin only (the bundle and its start script are files, no inline
 *   script); inline styles, which Swagger UI uses throughout; "Try it out" may call this origin and the API
 *   servers the OpenAPI document lists.
 */
import type { Config } from "@petstore/config";

export type PolicyKind = "dashboard" | "docs";

/** Request header carrying the dashboard page's CSP nonce from proxy.ts to the layouts. */
export const NONCE_HEADER = "x-nonce";

/**
 * Request header carrying the page's address (path and query) from proxy.ts to the pages, for the unavailable
 * page to return to (next-child/page-auth.ts).
 */
export const ADDRESS_HEADER = "x-petstore-address";

export interface PolicyOptions {
  /** Per-response nonce (base64); dashboard pages only. */
  nonce?: string;
  /** Development build (adds 'unsafe-eval' to the dashboard's scripts). */
  development: boolean;
  /** Origins "Try it out" on /docs may call besides this one. */
  apiOrigins: string[];
  /** Served over HTTPS: ask browsers to upgrade any http:// subresource. */
  https: boolean;
}

const COMMON = ["object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"];

/** The Content-Security-Policy value for a response of `kind`. */
export function contentSecurityPolicy(kind: PolicyKind, options: PolicyOptions): string {
  const upgrade = options.https ? ["upgrade-insecure-requests"] : [];
  if (kind === "docs") {
    return [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      `connect-src ${["'self'", ...options.apiOrigins].join(" ")}`,
      ...COMMON,
      ...upgrade,
    ].join("; ");
  }
  const nonce = `'nonce-${options.nonce}'`;
  return [
    "default-src 'self'",
    `script-src 'self' ${nonce} 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${options.development ? "'unsafe-inline'" : nonce}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    ...COMMON,
    ...upgrade,
  ].join("; ");
}

/** Which policy a page path gets: /docs its own, every other page (404s included) the dashboard's. */
export function policyKindOf(pathname: string): PolicyKind {
  return pathname === "/docs" ? "docs" : "dashboard";
}

/** The headers besides the CSP, for every response the proxy sees. */
export function baseSecurityHeaders(https: boolean): Record<string, string> {
  return {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    ...(https ? { "Strict-Transport-Security": "max-age=31536000; includeSubDomains" } : {}),
  };
}

/**
 * Origins of the API servers in the OpenAPI document (this deployment's `PUBLIC_BASE_URL`, production,
 * staging), for /docs' connect-src.
 */
export function apiOrigins(config: Pick<Config, "servers" | "publicBaseUrl">): string[] {
  const urls = [config.publicBaseUrl, ...Object.values(config.servers)];
  return [...new Set(urls.map((url) => new URL(url).origin))];
}
