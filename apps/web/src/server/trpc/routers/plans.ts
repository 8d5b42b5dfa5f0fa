/**
 * Plans (admins): the plan table, edits of Free/Pro/Business limits, how many keys an edit affects, and each
 * plan's cap on a consumer account's live keys.
 */
import { PlanKeyCapChange, PlanLimitsChange, PlanRef } from "@petstore/contracts";
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
  /** Live keys one consumer account on the plan may hold; null: no cap. */
  setKeyCap: adminProcedure
    .input(PlanKeyCapChange)
    .mutation(({ ctx, input }) => ctx.rt.plans.setKeyCap(input, ctx.actor)),
});
