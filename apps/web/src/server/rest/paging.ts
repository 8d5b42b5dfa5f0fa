/**
 * Keyset paging of the /v1 lists, listPets, listCategories and listOrders (docs/contract.md section 1, "GET /v1/pets
 * (listPets)", "GET /v1/categories (listCategories)" and "GET /v1/store/orders (listOrders)"): a page is a JSON
 * array, and when more items follow the answer carries an RFC 8288 `Link: <…>; rel="next"` built from the
 * configured public base URL, never from the Host header. The page is a cacheable answer (conditional.ts) whose
 * ETag covers that link.
 */
import type { Context } from "hono";
import { cacheableJsonResponse, REVALIDATE } from "./conditional.ts";
import type { RestEnv } from "./env.ts";

/**
 * The 200 (or 304) of one page.
 * @param publicBaseUrl the deployment's origin (`PUBLIC_BASE_URL`, without /v1)
 * @param path the list's path under /v1, e.g. `/pets`
 * @param page the items in order and the core's cursor of the next page (absent on the last page)
 * @param query the query values the next link repeats, in link order (undefined: left out); the cursor comes last
 */
export function respondPage<T>(
  c: Context<RestEnv>,
  publicBaseUrl: string,
  path: string,
  page: { items: T[]; nextCursor?: string | undefined },
  query: Record<string, string | undefined>,
) {
  const json = JSON.stringify(page.items);
  if (!page.nextCursor) return cacheableJsonResponse<T[]>(c, json, { cacheControl: REVALIDATE });
  // The base URL is an origin (packages/config normalises it), so the link is built as text: as `URL` would
  // serialise it, without parsing it again for every page.
  const params = new URLSearchParams();
  for (const name in query) {
    const value = query[name];
    if (value !== undefined) params.set(name, value);
  }
  params.set("cursor", page.nextCursor);
  const headers = { Link: `<${publicBaseUrl}/v1${path}?${params}>; rel="next"` };
  return cacheableJsonResponse<T[]>(c, json, { headers, cacheControl: REVALIDATE });
}
