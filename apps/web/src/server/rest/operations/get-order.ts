/**
 * GET /v1/store/orders/{orderId} (getOrder; docs/contract.md section 1): one of the caller's orders; another owner's
 * is 404 like a missing one.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { Order } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { cacheableJsonResponse, REVALIDATE } from "../conditional.ts";
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
import { OrderIdParams, ownerOf } from "../store.ts";

export const getOrderRoute = createRoute({
  operationId: "getOrder",
  method: "get",
  path: "/store/orders/{orderId}",
  summary: "Fetch one of the caller's orders",
  description:
    "An order of the key's consumer account (or of the key alone outside accounts); any other order is 404 as one " +
    "that does not exist. Send its ETag back in `If-None-Match` to get 304 while it is unchanged. Needs the " +
    "`orders:read` scope.",
  tags: ["store"],
  security: bearerSecurity("orders:read"),
  middleware: [requireCaller, requireScope("orders:read")] as const,
  parameters: [ifNoneMatchParameter],
  request: { params: OrderIdParams },
  responses: {
    200: {
      description: "The order.",
      headers: cacheableResponseHeaders(),
      content: { "application/json": { schema: Order } },
    },
    304: notModifiedResponse(),
    ...errorResponses("validation_failed", "insufficient_scope", "not_found", ...baseErrorCodes),
  },
});

export function registerGetOrder(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(getOrderRoute, async (c) => {
    const caller = c.get("caller");
    if (!caller) throw new Error("requireCaller did not run");
    const order = await rt.orders.of(ownerOf(caller)).get(c.req.valid("param").orderId);
    return cacheableJsonResponse<Order>(c, JSON.stringify(order), { cacheControl: REVALIDATE });
  });
}
