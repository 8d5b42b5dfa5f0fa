/**
 * The dashboard session cookie: opaque token, httpOnly, SameSite=Lax, Path=/, Secure when served over
 * HTTPS. No Max-Age: the server enforces the idle expiry, and the browser drops the cookie when it closes.
 */
export const SESSION_COOKIE = "petstore_session";

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
