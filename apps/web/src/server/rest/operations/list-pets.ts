/**
 * GET /v1/pets (listPets): keyset-paged animals in ascending id order, optionally filtered by status
 * (docs/interface.md "GET /pets (listPets)"; docs/contract.md section 1 "GET /v1/pets (listPets)"). The next
 * page is announced with an RFC 8288 `Link: <…>; rel="next"` built from the configured public base URL, never
 * from the Host header.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Animal, DEFAULT_PAGE_SIZE, ListPetsQuery } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import type { RestEnv } from "../env.ts";
import { requireCaller } from "../middleware/authenticate.ts";
import { baseErrorCodes, bearerSecurity, errorResponses, responseHeaders } from "../openapi-shared.ts";
import { jsonResponse } from "../problem.ts";

export const listPetsRoute = createRoute({
  operationId: "listPets",
  method: "get",
  path: "/pets",
  summary: "List animals",
  description:
    "Lists animals in ascending id order, `limit` at a time. When more match, the response carries " +
    '`Link: <…/v1/pets?limit=…&cursor=…>; rel="next"`; follow it until no Link is returned. Unknown query parameters are ignored.',
  tags: ["pets"],
  security: bearerSecurity,
  middleware: [requireCaller] as const,
  request: { query: ListPetsQuery },
  responses: {
    200: {
      description: "A page of animals (possibly empty).",
      headers: responseHeaders("Link"),
      content: { "application/json": { schema: z.array(Animal).meta({ id: "Pets" }) } },
    },
    ...errorResponses("validation_failed", ...baseErrorCodes),
  },
});

export function registerListPets(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(listPetsRoute, async (c) => {
    const query = c.req.valid("query");
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = await rt.pets.list({ limit, status: query.status, cursor: query.cursor });
    if (!page.nextCursor) return jsonResponse(c, 200, page.items);
    const next = new URL(`${rt.config.publicBaseUrl}/v1/pets`);
    next.searchParams.set("limit", String(limit));
    if (query.status) next.searchParams.set("status", query.status);
    next.searchParams.set("cursor", page.nextCursor);
    return jsonResponse(c, 200, page.items, { Link: `<${next.toString()}>; rel="next"` });
  });
}
