/**
 * POST /v1/store/orders/{orderId}/complete (completeOrder; docs/contract.md section 1): the order `completed`, its
 * animal `sold`; a repeat is answered as the first, another closed order is 409.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Order } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import type { RestEnv } from "../env.ts";
import { respondJson } from "../respond.ts";
import { orderClosingRoute, ownerOf } from "../store.ts";

export const completeOrderRoute = orderClosingRoute("complete");

export function registerCompleteOrder(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(completeOrderRoute, async (c) => {
    const caller = c.get("caller");
    if (!caller) throw new Error("requireCaller did not run");
    const order = await rt.orders.of(ownerOf(caller)).complete(c.req.valid("param").orderId);
    return respondJson<Order, 200>(c, 200, JSON.stringify(order));
  });
}
