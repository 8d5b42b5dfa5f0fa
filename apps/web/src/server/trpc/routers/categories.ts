/** Categories (staff): list with animal counts, create, rename, delete when unused. */
import { CategoryName, EntityId } from "@petstore/contracts";
import { z } from "zod";
import { router, staffProcedure } from "../init";

export const categoriesRouter = router({
  list: staffProcedure.query(({ ctx }) => ctx.rt.categories.list()),

  create: staffProcedure
    .input(z.strictObject({ name: CategoryName }))
    .mutation(({ ctx, input }) => ctx.rt.categories.create(input.name, ctx.actor)),

  rename: staffProcedure
    .input(z.strictObject({ id: EntityId, name: CategoryName }))
    .mutation(({ ctx, input }) => ctx.rt.categories.rename(input.id, input.name, ctx.actor)),

  /** CONFLICT while animals still use the category. */
  remove: staffProcedure.input(z.strictObject({ id: EntityId })).mutation(async ({ ctx, input }) => {
    await ctx.rt.categories.remove(input.id, ctx.actor);
    return { id: input.id };
  }),
});
