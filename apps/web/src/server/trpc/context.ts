/**
 * tRPC context. The *inner* context (`createInnerContext`) is everything a procedure may use: the
 * runtime's domain services, the resolved session, the client IP and the response headers (for
 * Set-Cookie). Tests build it directly and call procedures through `createCaller`; the HTTP handler
 * builds it from the request with `createRequestContext`.
 */
import type { ResolvedSession, Runtime } from "@petstore/core";
import { DEVICE_COOKIE, readCookie, SESSION_COOKIE } from "./cookies";
import { clientIp, isHttps } from "./http";

export interface TrpcContext {
  rt: Runtime;
  /** The caller's live session, or null when signed out. */
  session: ResolvedSession | null;
  /** The raw cookie token (needed to end the session on sign-out). */
  sessionToken: string | null;
  /** The device cookie the browser sent (sign-in throttling tells the account's own browsers apart by it). */
  deviceCookie: string | null;
  clientIp: string;
  /** The browser's User-Agent header (kept with a new session to name the device). */
  userAgent: string | null;
  /** Whether cookies must carry `Secure`. */
  secureCookies: boolean;
  /** Headers added to the HTTP response (the session cookie). */
  resHeaders: Headers;
}

export interface InnerContextOptions {
  rt: Runtime;
  sessionToken?: string | null;
  deviceCookie?: string | null;
  clientIp?: string;
  userAgent?: string | null;
  secureCookies?: boolean;
  resHeaders?: Headers;
}

/** Builds the context from plain values, resolving `sessionToken` to its session. */
export async function createInnerContext(options: InnerContextOptions): Promise<TrpcContext> {
  const token = options.sessionToken ?? null;
  const clientIp = options.clientIp ?? "unknown";
  const session = token ? ((await options.rt.sessions.resolve(token, { ip: clientIp })) ?? null) : null;
  return {
    rt: options.rt,
    session,
    sessionToken: token,
    deviceCookie: options.deviceCookie ?? null,
    clientIp,
    userAgent: options.userAgent ?? null,
    secureCookies: options.secureCookies ?? false,
    resHeaders: options.resHeaders ?? new Headers(),
  };
}

/** Builds the context for an HTTP request (fetch adapter). */
export function createRequestContext(rt: Runtime, req: Request, resHeaders: Headers): Promise<TrpcContext> {
  return createInnerContext({
    rt,
    sessionToken: readCookie(req.headers.get("cookie"), SESSION_COOKIE) ?? null,
    deviceCookie: readCookie(req.headers.get("cookie"), DEVICE_COOKIE) ?? null,
    clientIp: clientIp(req.headers),
    userAgent: req.headers.get("user-agent"),
    // docs/contract.md section 4: Secure in production or over HTTPS.
    secureCookies: rt.config.environment === "production" || isHttps(req.headers, rt.config),
    resHeaders,
  });
}
