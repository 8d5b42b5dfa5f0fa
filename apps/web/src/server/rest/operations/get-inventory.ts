/**
 * GET /v1/store/inventory (getInventory; docs/contract.md section 1): the number of animals in each state, exact,
 * at the same cost at a million animals as at ten (core's pets/inventory.ts).
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { Inventory } from "@petstore/contracts";
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

export const getInventoryRoute = createRoute({
  operationId: "getInventory",
  method: "get",
  path: "/store/inventory",
  summary: "Count the animals by status",
  description:
    "The number of animals in each state (`unset`: without a status), exact as of the request. Send its ETag " +
    "back in `If-None-Match` to get 304 while it is unchanged. Needs the `pets:read` scope.",
  tags: ["store"],
  security: bearerSecurity("pets:read"),
  middleware: [requireCaller, requireScope("pets:read")] as const,
  parameters: [ifNoneMatchParameter],
  responses: {
    200: {
      description: "The counts.",
      headers: cacheableResponseHeaders(),
      content: { "application/json": { schema: Inventory } },
    },
    304: notModifiedResponse(),
    ...errorResponses("insufficient_scope", ...baseErrorCodes),
  },
});

export function registerGetInventory(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(getInventoryRoute, async (c) => {
    const inventory = await rt.pets.inventory();
    return cacheableJsonResponse<Inventory>(c, JSON.stringify(inventory), { cacheControl: REVALIDATE });
  });
}
