/** The signed-in person's own sessions (staff and members alike): list, end one, end all the others. */
import { SessionRef } from "@petstore/contracts";
import { personProcedure, router } from "../init";

export const sessionsRouter = router({
  /** Live sessions, most recently used first; the one making the call is `current`. */
  list: personProcedure.query(({ ctx }) => ctx.rt.userSessions.list(ctx.user.id, ctx.session.sessionId)),

  /** Ends one of the user's sessions (the current one too: that signs this browser out). NOT_FOUND otherwise. */
  revoke: personProcedure.input(SessionRef).mutation(async ({ ctx, input }) => {
    await ctx.rt.userSessions.revoke(ctx.user.id, input.id, ctx.actor);
    return { id: input.id, current: input.id === ctx.session.sessionId };
  }),

  /** Ends every session of the user but the current one. @returns how many ended. */
  revokeOthers: personProcedure.mutation(async ({ ctx }) => ({
    ended: await ctx.rt.userSessions.revokeOthers(ctx.user.id, ctx.session.sessionId, ctx.actor),
  })),
});
