/**
 * Next.js Proxy (Next 16's name for the middleware convention): security headers for the pages. Only pages and
 * Next's answers reach the Next process (server.ts answers /v1, the probes, /metrics and the dashboard's JSON
 * API itself: src/server/http/router.ts); of those, Next's static files and the vendored Swagger UI files are not
 * matched, so never slowed down. Everything else, 404 pages included, gets its policy here.
 * Dashboard pages get a fresh CSP nonce per request: it goes into the request's Content-Security-Policy
 * header, from which Next takes it for its scripts, and into `x-nonce` for the layout to hand to Mantine; the
 * page's address (path and query, without Next's `_rsc`) goes into `x-petstore-address`, for the unavailable
 * page to return to (src/server/next-child/page-auth.ts).
 * See src/server/security-headers.ts for the policies.
 */
import { getConfig, isDevelopmentBuild } from "@petstore/config";
import { type NextRequest, NextResponse } from "next/server";
import {
  ADDRESS_HEADER,
  apiOrigins,
  baseSecurityHeaders,
  contentSecurityPolicy,
  NONCE_HEADER,
  policyKindOf,
} from "@/server/security-headers";
import { isHttps } from "@/server/trpc/http";

export function proxy(request: NextRequest): NextResponse {
  const config = getConfig();
  const https = isHttps(request.headers, config);
  const kind = policyKindOf(request.nextUrl.pathname);
  const nonce =
    kind === "dashboard"
      ? Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64")
      : undefined;
  const policy = contentSecurityPolicy(kind, {
    nonce,
    development: isDevelopmentBuild(),
    apiOrigins: apiOrigins(config),
    https,
  });
  const requestHeaders = new Headers(request.headers);
  const address = new URL(request.nextUrl.href);
  address.searchParams.delete("_rsc");
  requestHeaders.set(ADDRESS_HEADER, address.pathname + address.search);
  if (nonce) {
    requestHeaders.set(NONCE_HEADER, nonce);
    requestHeaders.set("Content-Security-Policy", policy);
  } else {
    requestHeaders.delete(NONCE_HEADER);
  }
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  for (const [name, value] of Object.entries(baseSecurityHeaders(https))) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|vendor/|swagger-ui-init\\.js$).*)"],
};
