/** Plans (admins): the plan table and edits of Free/Pro/Business limits. */
import { PlanLimitsChange } from "@petstore/contracts";
import { adminProcedure, router } from "../init";

export const plansRouter = router({
  list: adminProcedure.query(({ ctx }) => ctx.rt.plans.list()),
  update: adminProcedure
    .input(PlanLimitsChange)
    .mutation(({ ctx, input }) => ctx.rt.plans.update(input, ctx.actor)),
});
