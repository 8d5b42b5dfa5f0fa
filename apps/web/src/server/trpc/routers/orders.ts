/**
 * Orders (staff): every order of the store, filtered and paged, one order, and completing or cancelling a placed
 * one, audited with the person as actor (docs/contract.md section 4, "Orders"; section 1, "The store section").
 */
import { AccountListFilter, OrderRef, OrderSearch } from "@petstore/contracts";
import { router, staffProcedure } from "../init";

export const ordersRouter = router({
  /** One page of orders, newest first, with who placed each and the animal's name. */
  search: staffProcedure.input(OrderSearch).query(({ ctx, input }) => ctx.rt.orders.search(input)),

  /** One order as the store sees it. NOT_FOUND when missing. */
  get: staffProcedure.input(OrderRef).query(({ ctx, input }) => ctx.rt.orders.get(input.id)),

  /** Completes a placed order (its animal `sold`). NOT_FOUND, CONFLICT when no longer placed. */
  complete: staffProcedure
    .input(OrderRef)
    .mutation(({ ctx, input }) => ctx.rt.orders.complete(input.id, ctx.actor)),

  /** Cancels a placed order (its animal `available`). NOT_FOUND, CONFLICT when no longer placed. */
  cancel: staffProcedure
    .input(OrderRef)
    .mutation(({ ctx, input }) => ctx.rt.orders.cancel(input.id, ctx.actor)),

  /** The consumer accounts by name, `{ id, name }` only: the choices of the account filter. */
  accounts: staffProcedure.query(async ({ ctx }) =>
    (await ctx.rt.accounts.list(AccountListFilter.parse({}))).map((a) => ({ id: a.id, name: a.name })),
  ),
});
