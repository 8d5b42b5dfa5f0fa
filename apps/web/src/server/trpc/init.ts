/**
 * tRPC initialisation and the procedure ladders: public -> staff -> admin, and public -> member -> owner
 * (docs/architecture.md "Accounts scoped in core"; docs/contract.md sections 4 and 7).
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

/** Anyone signed in, staff or member: their own sessions, password and second factor. */
export const personProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  const { user } = ctx.session;
  return next({ ctx: { session: ctx.session, user, actor: `user:${user.email}` } });
});

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

/** A member of a consumer account: `ctx.account` is the account's scope, and `ctx.rt` is `never`. */
export const memberProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  const { user } = ctx.session;
  if (!user.accountId)
    throw new TRPCError({ code: "FORBIDDEN", message: "Staff manage consumer accounts on the admin pages." });
  const account = ctx.rt.forAccount(user.accountId);
  return next({
    ctx: { session: ctx.session, user, account, actor: `user:${user.email}`, rt: undefined as never },
  });
});

export const ownerProcedure = memberProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "owner")
    throw new TRPCError({ code: "FORBIDDEN", message: "Only the account's owners may do this." });
  return next();
});
