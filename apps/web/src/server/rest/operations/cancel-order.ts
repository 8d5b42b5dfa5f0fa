/**
 * POST /v1/store/orders/{orderId}/cancel (cancelOrder): the order `cancelled`, its animal `available` again
 * (docs/contract.md section 1, "POST /v1/store/orders/{orderId}/complete (completeOrder) and .../cancel
 * (cancelOrder)"). A repeat of the call that closed the order is answered as the first; any other closed order is
 * 409 `conflict`.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Order } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import type { RestEnv } from "../env.ts";
import { respondJson } from "../respond.ts";
import { orderClosingRoute, ownerOf } from "../store.ts";

export const cancelOrderRoute = orderClosingRoute("cancel");

export function registerCancelOrder(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(cancelOrderRoute, async (c) => {
    const caller = c.get("caller");
    if (!caller) throw new Error("requireCaller did not run");
    const order = await rt.orders.of(ownerOf(caller)).cancel(c.req.valid("param").orderId);
    return respondJson<Order, 200>(c, 200, JSON.stringify(order));
  });
}
