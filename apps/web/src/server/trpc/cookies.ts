/**
 * The dashboard's cookies. The session cookie: opaque token, httpOnly, SameSite=Lax, Path=/, Secure when
 * served over HTTPS; no Max-Age: the server enforces the idle and absolute expiry, and the browser drops the
 * cookie when it closes. The device cookie (docs/contract.md section 4, "Sign-in throttling"; core's
 * device-cookie.ts): signed tokens naming the accounts signed in on this browser, kept
 * `DEVICE_COOKIE_DAYS` days, sent only to the tRPC endpoint that signs in (Path=/api/trpc), httpOnly,
 * SameSite=Strict, Secure like the session cookie; signing out keeps it, since it marks the browser, not
 * the session.
 */
import { DEVICE_COOKIE_DAYS } from "@petstore/core";

export const SESSION_COOKIE = "petstore_session";
export const DEVICE_COOKIE = "petstore_device";

/** Reads one cookie from a `Cookie` request header. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) {
      const value = part.slice(index + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

const attributes = (secure: boolean) => `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

/** `Set-Cookie` value that stores the session token. */
export const sessionCookie = (token: string, secure: boolean) =>
  `${SESSION_COOKIE}=${token}; ${attributes(secure)}`;

/** `Set-Cookie` value that removes the session cookie. */
export const clearedSessionCookie = (secure: boolean) =>
  `${SESSION_COOKIE}=; ${attributes(secure)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;

/** `Set-Cookie` value that stores the device cookie `value` for `DEVICE_COOKIE_DAYS` days. */
export const deviceCookie = (value: string, secure: boolean) =>
  `${DEVICE_COOKIE}=${value}; Path=/api/trpc; Max-Age=${DEVICE_COOKIE_DAYS * 86_400}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
