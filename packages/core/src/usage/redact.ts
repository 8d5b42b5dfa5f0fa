/**
 * Redaction of a request target before the request log stores it (docs/contract.md section 7, "Usage and the
 * request log"): secrets a client puts in a URL are never kept as sent.
 */

/** What a redacted value is stored as. */
export const REDACTED = "[redacted]";

/**
 * Query parameter names whose values are secrets, compared case-insensitively with `-` read as `_`
 * (`Api-Key` is `api_key`).
 */
export const SECRET_PARAMETERS: ReadonlySet<string> = new Set([
  "api_key",
  "apikey",
  "key",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "secret",
  "client_secret",
  "password",
  "passwd",
  "signature",
  "sig",
  "auth",
  "authorization",
]);

/**
 * Anything shaped like one of our API keys (docs/contract.md section 2: `pet_live_` or `pet_test_`, then 38 base62
 * characters), checksum or not: a mistyped or forged key is still somebody's secret to the reader.
 */
const KEY_SHAPED = /pet_(?:live|test)_[0-9A-Za-z]{38}/;
/** Where redaction may be needed at all: a query, an escape (which could hide a key) or a key's first letters. */
const MAYBE_SECRET = /[?%]|pet_/;

/** `text` percent-decoded, or as it is when it is no valid escape sequence. */
function decoded(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** One `name=value` pair of a query, its value redacted when the name or the value says it is a secret. */
function redactPair(pair: string): string {
  if (pair === "") return pair;
  // URLSearchParams decodes the pair as a server does (`+` is a space, %XX escapes); the stored text stays as sent.
  const [entry] = new URLSearchParams(pair);
  if (!entry) return pair;
  const [name, value] = entry;
  const secretName = SECRET_PARAMETERS.has(name.toLowerCase().replaceAll("-", "_"));
  if (!secretName && !KEY_SHAPED.test(value) && !KEY_SHAPED.test(name)) return pair;
  const eq = pair.indexOf("=");
  if (secretName && eq >= 0) return `${pair.slice(0, eq)}=${REDACTED}`;
  if (secretName) return pair; // a bare name (`?token`) carries no value
  return KEY_SHAPED.test(name) ? REDACTED : `${pair.slice(0, eq)}=${REDACTED}`;
}

/**
 * The request target (`/v1/pets?limit=5`) as the request log stores it: the value of every query parameter named
 * like a secret (`SECRET_PARAMETERS`) and every path segment or query value shaped like an API key is replaced by
 * `[redacted]`; the rest is kept byte for byte. Pure and cheap: a target with no query, no escape and no `pet_`
 * is returned as it is.
 * @param target the path and query as sent
 */
export function redactTarget(target: string): string {
  if (!MAYBE_SECRET.test(target)) return target;
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const redactedPath =
    path.includes("pet_") || path.includes("%")
      ? path
          .split("/")
          .map((segment) => (KEY_SHAPED.test(decoded(segment)) ? REDACTED : segment))
          .join("/")
      : path;
  if (q < 0) return redactedPath;
  return `${redactedPath}?${target
    .slice(q + 1)
    .split("&")
    .map(redactPair)
    .join("&")}`;
}
