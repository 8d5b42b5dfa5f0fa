/** Overview page: animals by status and the orders' figures (staff), key and traffic figures (admins; the usage service's numbers). */
import { adminProcedure, router, staffProcedure } from "../init";

export const overviewRouter = router({
  animals: staffProcedure.query(({ ctx }) => ctx.rt.usage.animalsByStatus()),
  /** Open holds (placed orders) and orders placed today (UTC). */
  orders: staffProcedure.query(({ ctx }) => ctx.rt.orders.counts()),
  keys: adminProcedure.query(({ ctx }) => ctx.rt.usage.keyOverview()),
  /** Traffic of the whole API (every key and unauthenticated requests): last 24 h by hour, 30 days by day. */
  traffic: adminProcedure.query(({ ctx }) => ctx.rt.usage.traffic(undefined, 30)),
});
