/**
 * Users (admins): list (sortable by column), create staff and admins, change role, deactivate/reactivate, end
 * sessions, require a second factor of staff.
 */
import {
  TwoFactorRequirement,
  UserActiveChange,
  UserCreate,
  UserId,
  UserListSort,
  UserRoleChange,
} from "@petstore/contracts";
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
  /** Whether staff and admins must sign in with a second factor. */
  twoFactorRequired: adminProcedure.query(({ ctx }) => ctx.rt.twoFactor.staffRequired()),
  /** Requires (or not) a second factor of staff and admins (audited); it applies from their next sign-in. */
  setTwoFactorRequired: adminProcedure.input(TwoFactorRequirement).mutation(async ({ ctx, input }) => {
    await ctx.rt.twoFactor.setStaffRequired(input.required, ctx.actor);
    return { required: input.required };
  }),
  /** Ends every session of another user (audited). CONFLICT for one's own account. */
  endSessions: adminProcedure.input(z.strictObject({ id: UserId })).mutation(async ({ ctx, input }) => ({
    ended: await ctx.rt.userSessions.endAllOf(input.id, ctx.user.id, ctx.actor),
  })),
});
