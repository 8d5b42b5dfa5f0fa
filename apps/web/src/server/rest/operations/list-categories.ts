/**
 * GET /v1/categories (listCategories), an addition to the interface (docs/contract.md section 1, "GET
 * /v1/categories (listCategories)"): the store's categories `{ id, name }` in ascending id order, so that a client
 * can learn the `categoryId` createPet needs. Paged exactly as listPets (`limit` 1 to 100, default 20; a signed
 * cursor in an RFC 8288 `Link: rel="next"`: paging.ts) and guarded by the same `pets:read` scope.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Category, DEFAULT_PAGE_SIZE, ListCategoriesQuery, MAX_PAGE_SIZE } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import type { RestEnv } from "../env.ts";
import { requireCaller } from "../middleware/require-caller.ts";
import { requireScope } from "../middleware/require-scope.ts";
import {
  baseErrorCodes,
  bearerSecurity,
  cacheableResponseHeaders,
  errorResponses,
  ifNoneMatchParameter,
  notModifiedResponse,
} from "../openapi-shared.ts";
import { respondPage } from "../paging.ts";

export const listCategoriesRoute = createRoute({
  operationId: "listCategories",
  method: "get",
  path: "/categories",
  summary: "List categories",
  description:
    "An addition to the interface: the categories an animal may belong to (`categoryId` of createPet), in ascending id " +
    'order, `limit` at a time, paged as `GET /pets` is: when more follow, the response carries `Link: <…/v1/categories?limit=…&cursor=…>; rel="next"`; ' +
    "follow it until no Link is returned. Unknown query parameters are ignored. Send the page's ETag back in `If-None-Match` " +
    "to get 304 while it is unchanged. Needs the `pets:read` scope.",
  tags: ["categories"],
  security: bearerSecurity("pets:read"),
  middleware: [requireCaller, requireScope("pets:read")] as const,
  request: { query: ListCategoriesQuery },
  parameters: [ifNoneMatchParameter],
  responses: {
    200: {
      description: "A page of categories (possibly empty).",
      headers: cacheableResponseHeaders("Link"),
      content: {
        "application/json": { schema: z.array(Category).max(MAX_PAGE_SIZE).meta({ id: "Categories" }) },
      },
    },
    304: notModifiedResponse("Link"),
    ...errorResponses("validation_failed", "insufficient_scope", ...baseErrorCodes),
  },
});

export function registerListCategories(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(listCategoriesRoute, async (c) => {
    const query = c.req.valid("query");
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = await rt.categories.page({ limit, cursor: query.cursor });
    return respondPage<Category>(c, rt.config.publicBaseUrl, "/categories", page, { limit: String(limit) });
  });
}
