/**
 * Paging by `Link: <…>; rel="next"` (RFC 8288; docs/contract.md section 1 "GET /v1/pets"): the next page's
 * query is read from the link's URL.
 */
import LinkHeader from "http-link-header";
import type { operations } from "./generated/v1.js";

export type ListPetsQuery = NonNullable<operations["listPets"]["parameters"]["query"]>;

/**
 * The query of the page after this one, from the response's `Link` header; undefined on the last page.
 * @throws Error when the next link has no `cursor` (following it would fetch the same page forever).
 * Only the query is taken: the request goes to the client's own base URL, which may differ from the
 * deployment's public one the link is built from (an internal address, a proxy, a test server).
 */
export function nextPageQuery(headers: Headers): ListPetsQuery | undefined {
  const value = headers.get("link");
  if (!value) return undefined;
  const [next] = LinkHeader.parse(value).rel("next");
  if (!next) return undefined;
  const params = new URL(next.uri, "http://link.invalid").searchParams;
  const cursor = params.get("cursor");
  const limit = params.get("limit");
  const status = params.get("status");
  if (!cursor) throw new Error(`Link rel="next" without a cursor: ${next.uri}`);
  const query: ListPetsQuery = { cursor };
  if (limit) query.limit = Number(limit);
  if (status) query.status = status as NonNullable<ListPetsQuery["status"]>;
  return query;
}
