/**
 * GET /v1/store/orders (listOrders; docs/contract.md section 1): the caller's orders, newest first, filtered by
 * status and animal, paged as listPets with cursors of their own.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { DEFAULT_PAGE_SIZE, ListOrdersQuery, MAX_PAGE_SIZE, Order } from "@petstore/contracts";
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
import { ownerOf } from "../store.ts";

export const listOrdersRoute = createRoute({
  operationId: "listOrders",
  method: "get",
  path: "/store/orders",
  summary: "List the caller's orders",
  description:
    "The orders of the key's consumer account (or of the key alone outside accounts), newest first, `limit` at a " +
    'time, filtered by `status` and `petId`. When more match, the response carries `Link: <…/v1/store/orders?limit=…&cursor=…>; rel="next"`; ' +
    "follow it until no Link is returned. Unknown query parameters are ignored. Send the page's ETag back in " +
    "`If-None-Match` to get 304 while it is unchanged. Needs the `orders:read` scope.",
  tags: ["store"],
  security: bearerSecurity("orders:read"),
  middleware: [requireCaller, requireScope("orders:read")] as const,
  request: { query: ListOrdersQuery },
  parameters: [ifNoneMatchParameter],
  responses: {
    200: {
      description: "A page of orders (possibly empty).",
      headers: cacheableResponseHeaders("Link"),
      content: { "application/json": { schema: z.array(Order).max(MAX_PAGE_SIZE).meta({ id: "Orders" }) } },
    },
    304: notModifiedResponse("Link"),
    ...errorResponses("validation_failed", "insufficient_scope", ...baseErrorCodes),
  },
});

export function registerListOrders(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(listOrdersRoute, async (c) => {
    const query = c.req.valid("query");
    const caller = c.get("caller");
    if (!caller) throw new Error("requireCaller did not run");
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = await rt.orders
      .of(ownerOf(caller))
      .list({ limit, status: query.status, petId: query.petId, cursor: query.cursor });
    return respondPage<Order>(c, rt.config.publicBaseUrl, "/store/orders", page, {
      limit: String(limit),
      status: query.status,
      petId: query.petId?.toString(),
    });
  });
}
