/**
 * Conditional requests (docs/contract.md section 1, "Conditional requests and compression"): the answers of
 * the lists, getPet, getOrder, getInventory and the OpenAPI document carry a strong `ETag`, and a GET or HEAD whose
 * `If-None-Match` names it is answered 304 Not Modified without a body, with the headers the 200 would have had
 * (RFC 9110 sections 13.1.2 and 15.4.5). The 304 is still a request that reached the API: it counts against the
 * key's limits and in its usage like the 200 it replaces. updatePet's `If-Match` is read here too (`ifMatch`).
 *
 * The ETag is the SHA-1 of the JSON text and of the headers the operation sets for it (listPets' `Link`: the
 * same page can gain a next link when animals are added after it), so it changes exactly when the answer does
 * (core's entity-tag.ts). It is computed from the string the app already holds; Hono's `etag` middleware would
 * read the finished Response's body back as a web stream instead (docs/performance.md, "Where the time goes").
 */
import { entityTag } from "@petstore/core/entity-tag";
import type { Context, TypedResponse } from "hono";
import { describeCoding, negotiatedCoding } from "./content-coding.ts";
import type { RestEnv } from "./env.ts";
import { mergeHeaders, respondJson } from "./respond.ts";

/**
 * Cache-Control of an animal's or a page's answer: only the client's own cache keeps it, and revalidates it before
 * each use (`no-cache`). `must-revalidate` adds nothing to that, but caches that follow RFC 9111 section 3.5 (undici's
 * cache interceptor among them) store an answer to a request with `Authorization` only when it says `public`,
 * `s-maxage` or `must-revalidate`, and every /v1 request carries the key in `Authorization`.
 */
export const REVALIDATE = "private, no-cache, must-revalidate";

const ENTITY_TAGS = /(?:W\/)?"[^"]*"/g;

/**
 * The test of `If-Match` (RFC 9110 section 13.1.1) as core's updatePet asks it, or undefined without the header:
 * `*` matches any current tag, a list of tags the one it lists by the strong comparison (a weak tag never
 * matches); a header that lists no well-formed tag matches nothing.
 */
export function ifMatch(header: string | undefined): ((etag: string) => boolean) | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === "*") return () => true;
  const tags = (header.match(ENTITY_TAGS) ?? []).filter((tag) => !tag.startsWith("W/"));
  return (etag) => tags.includes(etag);
}

/**
 * Whether `ifNoneMatch` (the request's If-None-Match, RFC 9110 section 13.1.2) matches `etag` by the weak
 * comparison: `*`, or a listed tag whose opaque part equals the current one's, weak or not. A header that lists
 * no well-formed tag matches nothing.
 */
export function ifNoneMatchMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = etag.startsWith("W/") ? etag.slice(2) : etag;
  for (const tag of ifNoneMatch.match(ENTITY_TAGS) ?? []) {
    if ((tag.startsWith("W/") ? tag.slice(2) : tag) === opaque) return true;
  }
  return false;
}

/** The 304 for a representation whose body would be `json`: the 200's headers without Content-Type, no body. */
function notModified(c: Context<RestEnv>, json: string, headers?: Record<string, string>): Response {
  const merged = mergeHeaders(c, headers);
  delete merged["Content-Type"];
  describeCoding(merged, json, negotiatedCoding(c, json));
  return new Response(null, { status: 304, headers: merged });
}

/**
 * The 200 answer of a cacheable GET (`json`: the JSON text of a `T`; `headers`: the operation's own, e.g. Link),
 * with `ETag` and `Cache-Control: cacheControl`, or the 304 when the request's If-None-Match already names that
 * ETag. `etag` may be given when it is known (a constant body); otherwise it is computed (`entityTag`).
 */
export function cacheableJsonResponse<T>(
  c: Context<RestEnv>,
  json: string,
  options: { headers?: Record<string, string>; cacheControl: string; etag?: string },
): Response & TypedResponse<T, 200, "json"> {
  const etag = options.etag ?? entityTag(json, options.headers);
  c.set("caching", { ETag: etag, "Cache-Control": options.cacheControl });
  if (ifNoneMatchMatches(c.req.header("if-none-match"), etag))
    return notModified(c, json, options.headers) as Response & TypedResponse<T, 200, "json">;
  return respondJson<T, 200>(c, 200, json, options.headers);
}
