/**
 * What the store section's operations share (docs/contract.md section 1, "The store section"): the caller's owner,
 * the `orderId` parameter, and the declaration of completeOrder and cancelOrder.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { IdParam, MAX_PET_ID, Order } from "@petstore/contracts";
import type { ApiCaller, Owner } from "@petstore/core";
import { optionalObjectBody } from "./middleware/json-body.ts";
import { requireCaller } from "./middleware/require-caller.ts";
import { requireScope } from "./middleware/require-scope.ts";
import { baseErrorCodes, bearerSecurity, errorResponses, responseHeaders } from "./openapi-shared.ts";

/** The owner of the caller's orders: its key's consumer account, or the key itself outside accounts. */
export const ownerOf = (caller: ApiCaller): Owner =>
  caller.account ? { accountId: caller.account.id } : { apiKeyId: caller.keyId };

/** `{orderId}`: a plain decimal from 1 to 2^63-1, as getPet's `petId`. */
export const OrderIdParams = z.object({
  orderId: IdParam.meta({
    param: { name: "orderId", in: "path" },
    type: "integer",
    format: "int64",
    minimum: 1,
    // A double: the served text states it exactly (openapi-document.ts).
    maximum: Number(MAX_PET_ID),
    description: "Identifier of the order: decimal without leading zeros, 1 to 9223372036854775807.",
    example: 1,
  }),
});

/** The declaration of completeOrder (`complete`) or cancelOrder (`cancel`). */
export function orderClosingRoute(closing: "complete" | "cancel") {
  const complete = closing === "complete";
  return createRoute({
    operationId: complete ? "completeOrder" : "cancelOrder",
    method: "post",
    path: `/store/orders/{orderId}/${closing}`,
    summary: complete ? "Complete an order" : "Cancel an order",
    description:
      (complete
        ? "Completes a placed order: the order becomes `completed` and its animal `sold`. "
        : "Cancels a placed order: the order becomes `cancelled` and its animal `available` again. ") +
      "No body is needed (an empty body, or `{}`). Repeating the call that closed the order answers the order as " +
      "the first call did, so a retry is safe without an Idempotency-Key; an order closed otherwise is 409 " +
      "`conflict` naming its state (a hold that lapsed counts as expired). Needs the `orders:write` scope.",
    tags: ["store"],
    security: bearerSecurity("orders:write"),
    middleware: [requireCaller, requireScope("orders:write"), optionalObjectBody] as const,
    request: {
      params: OrderIdParams,
      body: {
        required: false,
        description: "Nothing, or an empty object.",
        content: { "application/json": { schema: z.strictObject({}).meta({ id: "NoInput" }) } },
      },
    },
    responses: {
      200: {
        description: complete ? "The order, completed." : "The order, cancelled.",
        headers: responseHeaders(),
        content: { "application/json": { schema: Order } },
      },
      ...errorResponses(
        "invalid_request",
        "validation_failed",
        "payload_too_large",
        "unsupported_media_type",
        "insufficient_scope",
        "not_found",
        "conflict",
        ...baseErrorCodes,
      ),
    },
  });
}
