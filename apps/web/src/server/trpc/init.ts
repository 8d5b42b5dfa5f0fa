/**
 * tRPC initialisation and the procedure ladder: `publicProcedure` (anyone) -> `staffProcedure` (any
 * signed-in user: staff or admin; adds `user` and `actor` to the context) -> `adminProcedure` (admins
 * only). Anonymous callers of a protected procedure get UNAUTHORIZED, staff calling an admin procedure
 * FORBIDDEN. Every procedure maps domain errors through `mapAppErrors`.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import type { TrpcContext } from "./context";
import { formatError, mapAppErrors } from "./errors";

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter: formatError,
  isDev: false,
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(({ next }) => mapAppErrors(next));

export const staffProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  const { user } = ctx.session;
  return next({ ctx: { session: ctx.session, user, actor: `user:${user.email}` } });
});

export const adminProcedure = staffProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "admin")
    throw new TRPCError({ code: "FORBIDDEN", message: "Only admins may do this." });
  return next({ ctx: { user: { ...ctx.user, role: "admin" as const } } });
});
