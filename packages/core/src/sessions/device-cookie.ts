/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"; docs/contract.md section 4,
 * "Sign-in throttling"): a successful sign-in gives the browser a signed token naming the account, so that
 * later sign-ins to that account from this browser are told apart from a stranger's guesses. While strangers
 * keep an account's sign-in blocked, attempts with a valid token for it are not blocked (they have a failure
 * limit of their own, per token).
 *
 * A token is `<user id>.<nonce>.<issued at, Unix seconds>.<signature>`: a random 128-bit nonce (the token's
 * identity for its failure limit) and an HMAC-SHA256 (RFC 2104) over the rest under a server secret, so it
 * cannot be forged or moved to another account. It is valid `DEVICE_COOKIE_DAYS` days from issue. One cookie
 * holds the tokens of up to `DEVICE_COOKIE_ACCOUNTS` accounts signed in on the browser, newest first,
 * separated by `~`.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a device token is valid after the sign-in that issued it. */
export const DEVICE_COOKIE_DAYS = 90;
/** Accounts one browser's cookie remembers (each sign-in puts its account first). */
export const DEVICE_COOKIE_ACCOUNTS = 5;

const DAY_MS = 86_400_000;
/** Longer cookie values are ignored rather than parsed: five tokens take about 600 characters. */
const MAX_COOKIE_LENGTH = 2048;
const TOKEN = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{22})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

/** A verified, unexpired device token. */
export interface DeviceToken {
  userId: string;
  /** Identifies the token (its failure bucket); random, never reused. */
  nonce: string;
  issuedAt: Date;
  /** The token as it appears in the cookie. */
  text: string;
}

export interface DeviceCookieCodec {
  /** The tokens in `cookie` that are correctly signed and still valid at `now` (an empty list for none). */
  tokens(cookie: string | null | undefined, now: Date): DeviceToken[];
  /**
   * The cookie value after `userId` signed in at `now`: a fresh token for that account first, then the
   * still valid tokens of other accounts from `cookie`, at most `DEVICE_COOKIE_ACCOUNTS` in all.
   */
  issue(cookie: string | null | undefined, userId: string, now: Date): string;
}

/** A codec signing with `secret` (the server secret `device-cookie`: see secrets.ts). */
export function createDeviceCookieCodec(secret: string): DeviceCookieCodec {
  const sign = (body: string) =>
    createHmac("sha256", secret).update(`device-cookie v1|${body}`).digest("base64url");

  function verify(text: string, now: Date): DeviceToken | undefined {
    const match = TOKEN.exec(text);
    if (!match) return undefined;
    const [, userId = "", nonce = "", issuedSeconds = "", signature = ""] = match;
    const expected = Buffer.from(sign(`${userId}.${nonce}.${issuedSeconds}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    const issuedAt = new Date(Number(issuedSeconds) * 1000);
    const age = now.getTime() - issuedAt.getTime();
    if (age < -60_000 || age >= DEVICE_COOKIE_DAYS * DAY_MS) return undefined;
    return { userId, nonce, issuedAt, text };
  }

  const tokens: DeviceCookieCodec["tokens"] = (cookie, now) => {
    if (!cookie || cookie.length > MAX_COOKIE_LENGTH) return [];
    return cookie
      .split("~", DEVICE_COOKIE_ACCOUNTS)
      .map((text) => verify(text, now))
      .filter((token): token is DeviceToken => token !== undefined);
  };

  return {
    tokens,
    issue(cookie, userId, now) {
      const body = `${userId}.${randomBytes(16).toString("base64url")}.${Math.floor(now.getTime() / 1000)}`;
      const others = tokens(cookie, now).filter((token) => token.userId !== userId);
      return [`${body}.${sign(body)}`, ...others.map((token) => token.text)]
        .slice(0, DEVICE_COOKIE_ACCOUNTS)
        .join("~");
    },
  };
}
