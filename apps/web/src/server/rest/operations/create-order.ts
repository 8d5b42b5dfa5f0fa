/**
 * POST /v1/store/orders (createOrder; docs/contract.md section 1): orders an available animal, held for the caller;
 * 201 with Location, 409 for an animal that is not available; Idempotency-Key as createPet.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { Order, OrderCreate } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import type { RestEnv } from "../env.ts";
import { IdempotencyHeaders, runCreation } from "../idempotency.ts";
import { jsonObjectBody } from "../middleware/json-body.ts";
import { requireCaller } from "../middleware/require-caller.ts";
import { requireScope } from "../middleware/require-scope.ts";
import { baseErrorCodes, bearerSecurity, errorResponses, responseHeaders } from "../openapi-shared.ts";
import { respondJson } from "../respond.ts";
import { ownerOf } from "../store.ts";

export const createOrderRoute = createRoute({
  operationId: "createOrder",
  method: "post",
  path: "/store/orders",
  summary: "Order an animal",
  description:
    "Orders an `available` animal: it becomes `pending`, held for the caller until `holdUntil` (`holdMinutes`, or " +
    "the deployment's default of 30 minutes), until the order is completed or cancelled; a hold that lapses makes " +
    "the order `expired` and the animal `available` again. An animal in any other state is 409 `conflict`; of " +
    "concurrent orders for one animal exactly one is placed. The order belongs to the key's consumer account (every " +
    "key of the account sees it), or to the key alone outside accounts. Needs the `orders:write` scope.",
  tags: ["store"],
  security: bearerSecurity("orders:write"),
  middleware: [requireCaller, requireScope("orders:write"), jsonObjectBody] as const,
  request: {
    headers: IdempotencyHeaders,
    body: { required: true, content: { "application/json": { schema: OrderCreate } } },
  },
  responses: {
    201: {
      description:
        "The order was placed (or, with `Idempotent-Replayed: true`, an earlier placement is replayed).",
      headers: responseHeaders("Location", "Idempotent-Replayed"),
      content: { "application/json": { schema: Order } },
    },
    ...errorResponses(
      "invalid_request",
      "validation_failed",
      "payload_too_large",
      "unsupported_media_type",
      "conflict",
      "idempotency_key_in_use",
      "idempotency_key_reused",
      "insufficient_scope",
      ...baseErrorCodes,
    ),
  },
});

export function registerCreateOrder(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(createOrderRoute, async (c) => {
    const input = c.req.valid("json");
    const caller = c.get("caller");
    if (!caller) throw new Error("requireCaller did not run");
    const orders = rt.orders.of(ownerOf(caller));
    const { response, replayed } = await runCreation(
      rt,
      {
        apiKeyId: caller.keyId,
        key: c.req.valid("header")["idempotency-key"],
        // Named, so that a key a createPet used is another body here (422), never a replay of that animal.
        fingerprinted: { createOrder: input },
      },
      async (tx) => {
        const order = await orders.create(input, { apiKeyId: caller.keyId }, tx);
        return {
          status: 201,
          body: JSON.stringify(order),
          headers: { Location: `${rt.config.publicBaseUrl}/v1/store/orders/${order.id}` },
        };
      },
    );
    // The stored headers: Location.
    const headers = { ...response.headers, ...(replayed && { "Idempotent-Replayed": "true" }) };
    return respondJson<Order, 201>(c, 201, response.body, headers);
  });
}
