/**
 * GET /v1/store/orders: referred to by the spec but its contract is not published, so it is authenticated
 * and rate limited like every operation and answers 501 `not_implemented` (docs/contract.md section 1).
 * It needs no scope: it reads and does nothing, so any valid key gets the 501. Orders get a scope of their own
 * (`orders:read`) with their contract (docs/contract.md section 2, "Scopes").
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { AppError } from "@petstore/contracts";
import type { RestEnv } from "../env.ts";
import { requireCaller } from "../middleware/require-caller.ts";
import { baseErrorCodes, bearerSecurity, errorResponses } from "../openapi-shared.ts";

export const listStoreOrdersRoute = createRoute({
  operationId: "listStoreOrders",
  method: "get",
  path: "/store/orders",
  summary: "List store orders (not implemented)",
  description:
    "Referred to by the interface, but its contract is not published: always 501 `not_implemented`.",
  tags: ["store"],
  security: bearerSecurity(),
  middleware: [requireCaller] as const,
  responses: { ...errorResponses("not_implemented", ...baseErrorCodes) },
});

export function registerListStoreOrders(app: OpenAPIHono<RestEnv>): void {
  app.openapi(listStoreOrdersRoute, () => {
    throw new AppError(
      "not_implemented",
      "GET /v1/store/orders is referred to by the interface, but its contract is not published yet.",
    );
  });
}
