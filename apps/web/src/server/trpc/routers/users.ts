/** Users (admins): list (sortable by column), create staff and admins, change role, deactivate/reactivate, end sessions. */
import { UserActiveChange, UserCreate, UserId, UserListSort, UserRoleChange } from "@petstore/contracts";
import { z } from "zod";
import { adminProcedure, router } from "../init";

export const usersRouter = router({
  list: adminProcedure.input(UserListSort.prefault({})).query(({ ctx, input }) => ctx.rt.users.list(input)),
  create: adminProcedure
    .input(UserCreate)
    .mutation(({ ctx, input }) => ctx.rt.users.create(input, ctx.actor)),
  /** CONFLICT for one's own role or the last admin. */
  setRole: adminProcedure
    .input(UserRoleChange)
    .mutation(({ ctx, input }) => ctx.rt.users.setRole(input, ctx.actor, ctx.user.id)),
  /** Deactivation ends the user's sessions at once. CONFLICT for oneself or the last admin. */
  setActive: adminProcedure
    .input(UserActiveChange)
    .mutation(({ ctx, input }) => ctx.rt.users.setActive(input, ctx.actor, ctx.user.id)),
  /** Ends every session of another user (audited). CONFLICT for one's own account. */
  endSessions: adminProcedure.input(z.strictObject({ id: UserId })).mutation(async ({ ctx, input }) => ({
    ended: await ctx.rt.userSessions.endAllOf(input.id, ctx.user.id, ctx.actor),
  })),
});
