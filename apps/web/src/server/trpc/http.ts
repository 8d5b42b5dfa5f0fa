/**
 * Request facts the dashboard needs: the client IP (for sign-in throttling), whether the request came
 * over HTTPS (for the cookie's Secure flag), and the same-origin check that guards state-changing calls.
 */
import type { Config } from "@petstore/config";

type HeaderSource = Pick<Headers, "get">;

/**
 * The caller's IP: the last X-Forwarded-For entry. Behind a trusted proxy (`TRUST_PROXY`) that is the
 * address the proxy saw; without one it is the socket address Next.js records there when the client sent
 * no X-Forwarded-For. (Route handlers cannot see the socket, so without a proxy a client that sends its
 * own X-Forwarded-For chooses its IP bucket; per-account throttling is unaffected.)
 * Falls back to `unknown`.
 */
export function clientIp(headers: HeaderSource): string {
  const last = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .at(-1);
  return last ? last.replace(/^::ffff:/, "").slice(0, 64) : "unknown";
}

/** True when the request arrived over HTTPS (directly, or per X-Forwarded-Proto behind a trusted proxy). */
export function isHttps(
  url: string,
  headers: HeaderSource,
  config: Pick<Config, "trustProxy" | "publicBaseUrl">,
): boolean {
  if (config.publicBaseUrl.startsWith("https:")) return true;
  if (config.trustProxy && headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https") return true;
  return url.startsWith("https:");
}

/**
 * Cross-site request guard for state-changing calls (used with SameSite=Lax cookies). Accepts the request
 * when its `Origin` is this deployment's public origin or matches the Host it was sent to; when a browser
 * sent no Origin, `Sec-Fetch-Site` must say same-origin. Requests with neither header (not from a
 * browser, so carrying no ambient cookies an attacker could ride on) are accepted.
 */
export function isSameOrigin(
  headers: HeaderSource,
  config: Pick<Config, "publicBaseUrl" | "trustProxy">,
): boolean {
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
  const host = (config.trustProxy ? headers.get("x-forwarded-host") : null) ?? headers.get("host");
  return host !== null && host.split(",")[0]?.trim().toLowerCase() === originHost.toLowerCase();
}
