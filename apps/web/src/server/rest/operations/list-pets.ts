/**
 * GET /v1/pets (listPets): keyset-paged animals in ascending id order, optionally filtered by status
 * (docs/interface.md "GET /pets (listPets)"; docs/contract.md section 1 "GET /v1/pets (listPets)"). The next
 * page is announced with an RFC 8288 `Link: <…>; rel="next"` built from the configured public base URL, never
 * from the Host header (paging.ts).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Animal, DEFAULT_PAGE_SIZE, ListPetsQuery, MAX_PAGE_SIZE } from "@petstore/contracts";
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

export const listPetsRoute = createRoute({
  operationId: "listPets",
  method: "get",
  path: "/pets",
  summary: "List animals",
  description:
    "Lists animals in ascending id order, `limit` at a time. When more match, the response carries " +
    '`Link: <…/v1/pets?limit=…&cursor=…>; rel="next"`; follow it until no Link is returned. Unknown query parameters are ignored. ' +
    "Send the page's ETag back in `If-None-Match` to get 304 while it is unchanged. Needs the `pets:read` scope.",
  tags: ["pets"],
  security: bearerSecurity("pets:read"),
  middleware: [requireCaller, requireScope("pets:read")] as const,
  request: { query: ListPetsQuery },
  parameters: [ifNoneMatchParameter],
  responses: {
    200: {
      description: "A page of animals (possibly empty).",
      headers: cacheableResponseHeaders("Link"),
      content: { "application/json": { schema: z.array(Animal).max(MAX_PAGE_SIZE).meta({ id: "Pets" }) } },
    },
    304: notModifiedResponse("Link"),
    ...errorResponses("validation_failed", "insufficient_scope", ...baseErrorCodes),
  },
});

export function registerListPets(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(listPetsRoute, async (c) => {
    const query = c.req.valid("query");
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = await rt.pets.list({ limit, status: query.status, cursor: query.cursor });
    return respondPage<Animal>(c, rt.config.publicBaseUrl, "/pets", page, {
      limit: String(limit),
      status: query.status,
    });
  });
}
