/**
 * Sign-in (with its second-factor step), sign-out, "forgot password" and "who am I" (public procedures: they work
 * without a session; docs/contract.md section 4 "Passwords" and "Two-factor sign-in").
 */
import { PasswordResetRequest, PasswordResetSet, SecondFactorCode, SignIn } from "@petstore/contracts";
import { TRPCError } from "@trpc/server";
import { clearedSessionCookie, deviceCookie, sessionCookie } from "../cookies";
import { publicProcedure, router } from "../init";

const expired = () =>
  new TRPCError({ code: "UNAUTHORIZED", message: "This sign-in has expired. Sign in again." });

export const authRouter = router({
  /** The signed-in user, or null. */
  me: publicProcedure.query(({ ctx }) => ctx.session?.user ?? null),

  /**
   * Checks the credentials (throttled per client, per account and client, and per account for browsers
   * without a device cookie for it; per device cookie for those with one), opens a session and sets its
   * cookie and a fresh device cookie. `stage` says what the session still waits for: `totp` (a code, then
   * `secondFactor`), `enrol` (enrolment, `enrolBegin`/`enrolConfirm`), or null. Errors: UNAUTHORIZED (same
   * message whatever was wrong), TOO_MANY_REQUESTS while throttled (Retry-After and `data.retryAfterSeconds`).
   */
  signIn: publicProcedure.input(SignIn).mutation(async ({ ctx, input }) => {
    const session = await ctx.rt.sessions.signIn(input, {
      ip: ctx.clientIp,
      userAgent: ctx.userAgent,
      deviceCookie: ctx.deviceCookie,
    });
    if (ctx.sessionToken) await ctx.rt.sessions.signOut(ctx.sessionToken, { ip: ctx.clientIp });
    ctx.resHeaders.append("set-cookie", sessionCookie(session.token, ctx.secureCookies));
    ctx.resHeaders.append("set-cookie", deviceCookie(session.deviceCookie, ctx.secureCookies));
    return { user: session.user, stage: session.stage };
  }),

  /**
   * The second step of a sign-in at stage `totp`: a code from the app or a recovery code. Sets the full session's
   * new cookie. UNAUTHORIZED for a wrong code or a lapsed sign-in; TOO_MANY_REQUESTS while throttled.
   */
  secondFactor: publicProcedure.input(SecondFactorCode).mutation(async ({ ctx, input }) => {
    const session = await ctx.rt.sessions.completeSecondFactor(ctx.sessionToken ?? undefined, input.code, {
      ip: ctx.clientIp,
    });
    ctx.resHeaders.append("set-cookie", sessionCookie(session.token, ctx.secureCookies));
    return { user: session.user };
  }),

  /** The step the browser's sign-in waits at (`totp` or `enrol`) and for whom, or null. */
  pending: publicProcedure.query(async ({ ctx }) => {
    const pending = await ctx.rt.sessions.pending(ctx.sessionToken ?? undefined);
    return pending ? { stage: pending.stage, email: pending.user.email } : null;
  }),

  /** Enrolment of a person who must have a second factor (stage `enrol`): a new secret, shown once. */
  enrolBegin: publicProcedure.mutation(async ({ ctx }) => {
    const pending = await ctx.rt.sessions.pending(ctx.sessionToken ?? undefined);
    if (pending?.stage !== "enrol") throw expired();
    return ctx.rt.twoFactor.begin(pending.user.id);
  }),

  /**
   * Confirms the enrolment with a first code and opens the session (new cookie). @returns the recovery codes,
   * shown once. BAD_REQUEST for a wrong code.
   */
  enrolConfirm: publicProcedure.input(SecondFactorCode).mutation(async ({ ctx, input }) => {
    const pending = await ctx.rt.sessions.pending(ctx.sessionToken ?? undefined);
    if (pending?.stage !== "enrol") throw expired();
    const { recoveryCodes } = await ctx.rt.twoFactor.confirm(
      pending.user.id,
      input.code,
      `user:${pending.user.email}`,
    );
    const session = await ctx.rt.sessions.promote(ctx.sessionToken ?? undefined, { ip: ctx.clientIp });
    ctx.resHeaders.append("set-cookie", sessionCookie(session.token, ctx.secureCookies));
    return { user: session.user, recoveryCodes };
  }),

  /**
   * "Forgot password": mails a reset link when the email has a sign-in; the answer is the same either way.
   * TOO_MANY_REQUESTS while the sign-in throttle refuses the email or the address.
   */
  requestPasswordReset: publicProcedure.input(PasswordResetRequest).mutation(async ({ ctx, input }) => {
    await ctx.rt.credentials.requestReset(input.email, { ip: ctx.clientIp });
    return { requested: true };
  }),

  /** Sets a new password with a reset link (which it uses up) and ends every session. NOT_FOUND for a bad link. */
  resetPassword: publicProcedure.input(PasswordResetSet).mutation(async ({ ctx, input }) => {
    const { email } = await ctx.rt.credentials.reset(input.token, input.password);
    if (ctx.sessionToken) ctx.resHeaders.append("set-cookie", clearedSessionCookie(ctx.secureCookies));
    return { email };
  }),

  /** Deletes the session and its cookie; harmless when signed out. */
  signOut: publicProcedure.mutation(async ({ ctx }) => {
    await ctx.rt.sessions.signOut(ctx.sessionToken ?? undefined, { ip: ctx.clientIp });
    ctx.resHeaders.append("set-cookie", clearedSessionCookie(ctx.secureCookies));
    return { signedOut: true };
  }),
});
