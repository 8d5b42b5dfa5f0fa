/** The signed-in person's own password and second factor (staff and members alike; audited in core). */
import { PasswordChange, SecondFactorCode, TwoFactorDisable } from "@petstore/contracts";
import { personProcedure, router } from "../init";

export const securityRouter = router({
  /** Whether the second factor is on, the recovery codes left, and whether it is required. */
  status: personProcedure.query(({ ctx }) => ctx.rt.twoFactor.status(ctx.user.id)),

  /**
   * Changes the password (the current one is checked) and ends the person's other sessions. BAD_REQUEST for a
   * wrong current password; TOO_MANY_REQUESTS while the sign-in throttle refuses.
   */
  changePassword: personProcedure
    .input(PasswordChange)
    .mutation(({ ctx, input }) =>
      ctx.rt.credentials.change(ctx.user.id, ctx.session.sessionId, input, { ip: ctx.clientIp }, ctx.actor),
    ),

  /** Starts an enrolment: the secret and its `otpauth://` URI, shown once. CONFLICT when already on. */
  begin: personProcedure.mutation(({ ctx }) => ctx.rt.twoFactor.begin(ctx.user.id)),

  /** Confirms the enrolment with a first code. @returns the recovery codes, shown once. */
  confirm: personProcedure
    .input(SecondFactorCode)
    .mutation(({ ctx, input }) => ctx.rt.twoFactor.confirm(ctx.user.id, input.code, ctx.actor)),

  /** Turns the second factor off with the password or a code. BAD_REQUEST when neither is right. */
  disable: personProcedure.input(TwoFactorDisable).mutation(async ({ ctx, input }) => {
    await ctx.rt.twoFactor.disable(ctx.user.id, input, ctx.actor);
    return { enabled: false };
  }),
});
