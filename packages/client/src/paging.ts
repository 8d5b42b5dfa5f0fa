/**
 * Paging by `Link: <…>; rel="next"` (RFC 8288; docs/contract.md section 1 "GET /v1/pets (listPets)", "GET
 * /v1/categories (listCategories)" and "GET /v1/store/orders (listOrders)"): the next page's query is read from the
 * link's URL.
 */
import LinkHeader from "http-link-header";
import type { operations } from "./generated/v1.js";

export type ListPetsQuery = NonNullable<operations["listPets"]["parameters"]["query"]>;
export type ListCategoriesQuery = NonNullable<operations["listCategories"]["parameters"]["query"]>;
export type ListOrdersQuery = NonNullable<operations["listOrders"]["parameters"]["query"]>;

/**
 * The query of the `Link: rel="next"` URL in `headers` with its cursor; undefined without a next link.
 * @throws Error when the next link has no `cursor` (following it would fetch the same page forever).
 */
function nextLinkQuery(headers: Headers): { cursor: string; params: URLSearchParams } | undefined {
  const value = headers.get("link");
  if (!value) return undefined;
  const [next] = LinkHeader.parse(value).rel("next");
  if (!next) return undefined;
  const params = new URL(next.uri, "http://link.invalid").searchParams;
  const cursor = params.get("cursor");
  if (!cursor) throw new Error(`Link rel="next" without a cursor: ${next.uri}`);
  return { cursor, params };
}

/**
 * The query of the page after this one, from the response's `Link` header; undefined on the last page.
 * @throws Error when the next link has no `cursor` (following it would fetch the same page forever).
 * Only the query is taken: the request goes to the client's own base URL, which may differ from the
 * deployment's public one the link is built from (an internal address, a proxy, a test server).
 */
export function nextPageQuery(headers: Headers): ListPetsQuery | undefined {
  const next = nextLinkQuery(headers);
  if (!next) return undefined;
  const limit = next.params.get("limit");
  const status = next.params.get("status");
  const query: ListPetsQuery = { cursor: next.cursor };
  if (limit) query.limit = Number(limit);
  if (status) query.status = status as NonNullable<ListPetsQuery["status"]>;
  return query;
}

/** As `nextPageQuery`, for a page of listCategories (`limit` and `cursor`; there is no filter). */
export function nextCategoriesQuery(headers: Headers): ListCategoriesQuery | undefined {
  const next = nextLinkQuery(headers);
  if (!next) return undefined;
  const limit = next.params.get("limit");
  const query: ListCategoriesQuery = { cursor: next.cursor };
  if (limit) query.limit = Number(limit);
  return query;
}

/** As `nextPageQuery`, for a page of listOrders (`limit`, `status`, `petId` and `cursor`). */
export function nextOrdersQuery(headers: Headers): ListOrdersQuery | undefined {
  const next = nextLinkQuery(headers);
  if (!next) return undefined;
  const query: ListOrdersQuery = { cursor: next.cursor };
  const limit = next.params.get("limit");
  const status = next.params.get("status");
  const petId = next.params.get("petId");
  if (limit) query.limit = Number(limit);
  if (status) query.status = status as NonNullable<ListOrdersQuery["status"]>;
  if (petId) query.petId = Number(petId);
  return query;
}
