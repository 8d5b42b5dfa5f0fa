/**
 * Cross-origin access to /v1 for browsers (docs/contract.md section 1, "Browsers (CORS)"; Fetch standard,
 * "CORS protocol"), right after the request context. A request that carries `Origin` (every cross-origin request
 * a browser sends does) gets `Access-Control-Allow-Origin: *` (keys are bearer tokens, never cookies, so
 * credentials are never allowed), or with `CORS_ALLOWED_ORIGINS` its own origin when listed and nothing
 * otherwise, and `Access-Control-Expose-Headers` with every response header a client reads. Every answer carries
 * `Vary: Origin`, since answers to requests with and without `Origin` differ (Fetch standard, "CORS protocol and
 * HTTP caches"). Server-to-server calls, which send no `Origin`, so carry no CORS header but that one.
 *
 * A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered here by Hono's `cors`
 * middleware, 204 with the methods, the request headers the API reads and a Max-Age; any other `OPTIONS` of a path
 * the API serves, 204 with `Allow` listing the path's methods (RFC 9110 section 9.3.7). Both before admission: they
 * cost no quota, need no key and are left out of usage analytics. Actual requests get their headers where every answer's headers are built (respond.ts
 * `mergeHeaders`) instead of through `cors`, which sets them on `c.res` before the operation runs: Hono then
 * rebuilds the operation's Response around a web stream (docs/performance.md, "Where the time goes").
 */
import type { Config } from "@petstore/config";
import type { Context, Next } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import { answerHeaders } from "../../http/error-answer.ts";
import type { RestEnv } from "../env.ts";

/** The methods of the API's operations. */
export const CORS_ALLOWED_METHODS = ["GET", "HEAD", "POST", "PATCH"];

/** The request headers the API reads (beyond the CORS-safelisted ones). */
export const CORS_ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "X-Request-Id",
  "If-None-Match",
  "If-Match",
];

/** Every response header a client reads that is not CORS-safelisted. */
export const CORS_EXPOSED_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
  "Link",
  "Location",
  "X-Request-Id",
  "Deprecation",
  "Sunset",
  "Idempotent-Replayed",
  "ETag",
  "WWW-Authenticate",
  "Allow",
];

/** How long a browser may reuse a preflight's answer (s); Chromium caps it at 2 hours. */
export const CORS_MAX_AGE_SECONDS = 7200;

const VARY_ORIGIN = { Vary: "Origin" };

/**
 * The CORS stage for `config.cors.allowedOrigins` (`*` or a list of origins); `methodsOf(path)` gives the methods a
 * path of the app serves (none: an unknown path, whose OPTIONS goes on to the 404).
 */
export const crossOrigin = (config: Pick<Config, "cors">, methodsOf: (path: string) => string[]) => {
  const allowed = config.cors.allowedOrigins;
  const preflight = cors({
    origin: allowed === "*" ? "*" : [...allowed],
    allowMethods: CORS_ALLOWED_METHODS,
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
  });
  const exposed = CORS_EXPOSED_HEADERS.join(", ");
  const anyOrigin = allowed === "*";

  const answerPreflight = async (c: Context<RestEnv>, next: Next) => {
    const answer = (await preflight(c, next)) as Response;
    // A 204 has no content, so no Content-Type; it carries the request id and no-store like every answer.
    answer.headers.set("X-Request-Id", c.get("requestId"));
    answer.headers.set("Cache-Control", "no-store");
    return answer;
  };

  /** The CORS headers of an actual request from `origin`. */
  const actualHeaders = (origin: string | undefined): Record<string, string> =>
    origin !== undefined && (anyOrigin || allowed.includes(origin))
      ? {
          Vary: "Origin",
          "Access-Control-Allow-Origin": anyOrigin ? "*" : origin,
          "Access-Control-Expose-Headers": exposed,
        }
      : VARY_ORIGIN;

  /** `OPTIONS` that is no preflight: what the path allows, or the 404 of an unknown path. */
  const answerOptions = async (c: Context<RestEnv>, next: Next, origin: string | undefined) => {
    const methods = methodsOf(c.req.path);
    if (methods.length === 0) {
      c.set("cors", actualHeaders(origin));
      return next();
    }
    return c.body(null, 204, {
      ...actualHeaders(origin),
      Allow: methods.join(", "),
      ...answerHeaders(c.get("requestId")),
    });
  };

  // Not `async`: on the path of every request, a pass-through that returns `next()` saves an async frame.
  return createMiddleware<RestEnv>((c, next) => {
    const origin = c.req.header("origin");
    if (c.req.method === "OPTIONS")
      return origin !== undefined && c.req.header("access-control-request-method") !== undefined
        ? answerPreflight(c, next)
        : answerOptions(c, next, origin);
    c.set("cors", actualHeaders(origin));
    return next();
  });
};
