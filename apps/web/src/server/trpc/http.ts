/**
 * Request facts the dashboard needs: the client IP (for sign-in throttling), whether the request came
 * over HTTPS (for the cookie's Secure flag), and the same-origin check that guards state-changing calls.
 */
import type { Config } from "@petstore/config";
import { trustedClientIp, trustedForwardedValue } from "../client-ip";

type HeaderSource = Pick<Headers, "get">;

/**
 * The caller's IP for the sign-in throttle: the address server.ts stamped (`trustedClientIp`, client-ip.ts); a
 * client-sent X-Forwarded-For is never believed here (server.ts reads it, with TRUST_PROXY, before stamping).
 */
export function clientIp(headers: HeaderSource): string {
  return trustedClientIp(headers);
}

/**
 * True when the client reached this deployment over HTTPS: its public URL is https, or (only behind a proxy
 * `TRUST_PROXY` trusts) the outermost trusted proxy's X-Forwarded-Proto entry (`trustedForwardedValue`: the same hop
 * as the client address) says https. The request URL's scheme is not evidence: the app itself only listens on plain HTTP, and
 * Next derives that scheme from a client-sent X-Forwarded-Proto.
 */
export function isHttps(headers: HeaderSource, config: Pick<Config, "publicBaseUrl">): boolean {
  if (config.publicBaseUrl.startsWith("https:")) return true;
  return trustedForwardedValue(headers, "x-forwarded-proto")?.toLowerCase() === "https";
}

/**
 * Cross-site request guard for state-changing calls (used with SameSite=Lax cookies). Accepts the request
 * when its `Origin` is this deployment's public origin or matches the Host it was sent to (with `TRUST_PROXY`,
 * the trusted proxy's X-Forwarded-Host entry, as `isHttps` reads X-Forwarded-Proto); when a browser
 * sent no Origin, `Sec-Fetch-Site` must say same-origin. Requests with neither header (not from a
 * browser, so carrying no ambient cookies an attacker could ride on) are accepted.
 */
export function isSameOrigin(headers: HeaderSource, config: Pick<Config, "publicBaseUrl">): boolean {
  const origin = headers.get("origin");
  if (!origin) {
    const site = headers.get("sec-fetch-site");
    return site === null || site === "same-origin" || site === "none";
  }
  if (origin === "null") return false;
  let originHost: string;
  try {
    const parsed = new URL(origin);
    if (parsed.origin === new URL(config.publicBaseUrl).origin) return true;
    originHost = parsed.host;
  } catch {
    return false;
  }
  const host = trustedForwardedValue(headers, "x-forwarded-host") ?? headers.get("host")?.trim();
  return host !== undefined && host.toLowerCase() === originHost.toLowerCase();
}
