/** Sign-in, sign-out and "who am I" (public procedures: they work without a session). */
import { SignIn } from "@petstore/contracts";
import { clearedSessionCookie, deviceCookie, sessionCookie } from "../cookies";
import { publicProcedure, router } from "../init";

export const authRouter = router({
  /** The signed-in user, or null. */
  me: publicProcedure.query(({ ctx }) => ctx.session?.user ?? null),

  /**
   * Checks the credentials (throttled per client, per account and client, and per account for browsers
   * without a device cookie for it; per device cookie for those with one), opens a session and sets its
   * cookie and a fresh device cookie. Errors: UNAUTHORIZED (same message whatever was wrong),
   * TOO_MANY_REQUESTS while throttled (Retry-After and `data.retryAfterSeconds` say for how long).
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
    return { user: session.user };
  }),

  /** Deletes the session and its cookie; harmless when signed out. */
  signOut: publicProcedure.mutation(async ({ ctx }) => {
    await ctx.rt.sessions.signOut(ctx.sessionToken ?? undefined, { ip: ctx.clientIp });
    ctx.resHeaders.append("set-cookie", clearedSessionCookie(ctx.secureCookies));
    return { signedOut: true };
  }),
});
