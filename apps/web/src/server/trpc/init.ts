/**
 * tRPC initialisation and the procedure ladders: `publicProcedure` (anyone) -> `staffProcedure` (signed-in staff
 * or admin; adds `user` and `actor` to the context) -> `adminProcedure` (admins only); and for the developer
 * portal `publicProcedure` -> `memberProcedure` (a signed-in member of a consumer account; adds `accountId`, by
 * which every portal procedure scopes what it reads and changes) -> `ownerProcedure` (the account's owners).
 * Members never pass a staff procedure and staff never pass a member one (docs/contract.md section 7).
 * Anonymous callers of a protected procedure get UNAUTHORIZED, a signed-in caller of the other ladder or of a
 * higher rung FORBIDDEN. Every procedure maps domain errors through `mapAppErrors`.
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
  if (user.accountId)
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "Members of API consumer accounts use the developer portal.",
    });
  return next({ ctx: { session: ctx.session, user, actor: `user:${user.email}` } });
});

export const adminProcedure = staffProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "admin")
    throw new TRPCError({ code: "FORBIDDEN", message: "Only admins may do this." });
  return next({ ctx: { user: { ...ctx.user, role: "admin" as const } } });
});

export const memberProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  const { user } = ctx.session;
  if (!user.accountId)
    throw new TRPCError({ code: "FORBIDDEN", message: "Staff manage consumer accounts on the admin pages." });
  return next({
    ctx: { session: ctx.session, user, accountId: user.accountId, actor: `user:${user.email}` },
  });
});

export const ownerProcedure = memberProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "owner")
    throw new TRPCError({ code: "FORBIDDEN", message: "Only the account's owners may do this." });
  return next();
});
