/** Plans (admins): the plan table, edits of Free/Pro/Business limits, and how many keys an edit affects. */
import { PlanLimitsChange, PlanRef } from "@petstore/contracts";
import { adminProcedure, router } from "../init";

export const plansRouter = router({
  list: adminProcedure.query(({ ctx }) => ctx.rt.plans.list()),
  /** Working keys on the plan that use its limits (asked before a change is confirmed). */
  affectedKeys: adminProcedure
    .input(PlanRef)
    .query(async ({ ctx, input }) => ({ keys: await ctx.rt.plans.affectedKeys(input.plan) })),
  update: adminProcedure
    .input(PlanLimitsChange)
    .mutation(({ ctx, input }) => ctx.rt.plans.update(input, ctx.actor)),
});
