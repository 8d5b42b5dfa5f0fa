/**
 * The developer portal (`/portal`; docs/contract.md section 7): a member's procedures act through `ctx.account`,
 * the account's scope from core (docs/architecture.md "Accounts scoped in core"). Accepting an invitation is public.
 */
import {
  AccountUsageRange,
  ApiKeyRef,
  ApiKeyRoll,
  InvitationAccept,
  InvitationCreate,
  InvitationToken,
  MemberRef,
  MemberRoleChange,
  PortalKeyCreate,
  RequestLogFilter,
  UsageRange,
} from "@petstore/contracts";
import { z } from "zod";
import { deviceCookie, sessionCookie } from "../cookies";
import { memberProcedure, ownerProcedure, publicProcedure, router } from "../init";
import { webhookRouter } from "./webhooks";

const keysRouter = router({
  /** The account's keys, newest first, each with its requests today. */
  list: memberProcedure.query(({ ctx }) => ctx.account.keys.list()),

  /** One key of the account with its requests today. */
  get: memberProcedure.input(ApiKeyRef).query(({ ctx, input }) => ctx.account.keys.get(input.id)),

  /**
   * Issues a key of the account on its plan; the secret (`key`) is in this response only. CONFLICT when the
   * account is suspended or holds as many live keys as its plan allows.
   */
  create: memberProcedure
    .input(PortalKeyCreate)
    .mutation(({ ctx, input }) => ctx.account.keys.create(input, ctx.actor)),

  /** New key with the same settings; the old one works `graceSeconds` more. CONFLICT while suspended. */
  roll: memberProcedure
    .input(ApiKeyRoll)
    .mutation(({ ctx, input }) => ctx.account.keys.roll(input.id, input.graceSeconds, ctx.actor)),

  revoke: memberProcedure
    .input(ApiKeyRef)
    .mutation(({ ctx, input }) => ctx.account.keys.revoke(input.id, ctx.actor)),

  /** The key's last 24 h by hour and `days` days by day, by outcome and operation. */
  traffic: memberProcedure
    .input(UsageRange)
    .query(({ ctx, input }) => ctx.account.keys.traffic(input.id, input.days)),

  /** The key's last 100 requests, newest first (time, operation, status, duration, request id). */
  recentRequests: memberProcedure
    .input(ApiKeyRef)
    .query(({ ctx, input }) => ctx.account.keys.recentRequests(input.id)),
});

export const portalRouter = router({
  /** The member's account: name, plan and its limits, state, live keys against the cap, members, invitations. */
  account: memberProcedure.query(async ({ ctx }) => ({ ...(await ctx.account.get()), role: ctx.user.role })),

  keys: keysRouter,

  webhooks: webhookRouter(
    memberProcedure.use(({ ctx, next }) => next({ ctx: { webhooks: ctx.account.webhooks } })),
  ),

  /**
   * The account's usage: every key's requests summed by hour (last 24 h) and by day (`days`), by operation and by
   * outcome; each key's requests today and in the last 7 and 30 days. The limits are `account`'s.
   */
  usage: memberProcedure
    .input(AccountUsageRange.prefault({}))
    .query(({ ctx, input }) => ctx.account.usage(input.days)),

  /**
   * The account's request log (every request of the last 7 days, up to 100,000), newest first, filtered by key,
   * status or class, operation, time range or `X-Request-Id`; `nextCursor` pages on.
   */
  requestLog: memberProcedure
    .input(RequestLogFilter.prefault({}))
    .query(({ ctx, input }) => ctx.account.requestLog(input)),

  /** Invites a member (owners only); the link is in this response only, valid 72 h, single use. */
  invite: ownerProcedure
    .input(InvitationCreate)
    .mutation(({ ctx, input }) => ctx.account.invite(input, ctx.actor)),

  /**
   * Makes a member of the account an owner or a developer (owners only; oneself too). NOT_FOUND for an id that is
   * no member of the account; CONFLICT when it would leave the account without an owner.
   */
  setMemberRole: ownerProcedure
    .input(MemberRoleChange)
    .mutation(({ ctx, input }) => ctx.account.setMemberRole(input, ctx.actor)),

  /**
   * Removes a member from the account (owners only; oneself too), ending their sessions at once. NOT_FOUND for an
   * id that is no member of the account; CONFLICT for the account's last owner.
   */
  removeMember: ownerProcedure
    .input(MemberRef)
    .mutation(({ ctx, input }) => ctx.account.removeMember(input.id, ctx.actor)),

  /** What an invitation link offers (account, email, role), while it can be accepted. NOT_FOUND otherwise. */
  invitation: publicProcedure
    .input(z.strictObject({ token: InvitationToken }))
    .query(({ ctx, input }) => ctx.rt.invitations.preview(input.token)),

  /**
   * Accepts an invitation with the new member's name and password and signs them in (the sign-in throttle,
   * session and device cookies of every sign-in). NOT_FOUND for a used, expired or unknown link; CONFLICT when
   * the email already has a sign-in.
   */
  acceptInvitation: publicProcedure.input(InvitationAccept).mutation(async ({ ctx, input }) => {
    const { email } = await ctx.rt.invitations.accept(input);
    const session = await ctx.rt.sessions.signIn(
      { email, password: input.password },
      { ip: ctx.clientIp, userAgent: ctx.userAgent, deviceCookie: ctx.deviceCookie },
    );
    if (ctx.sessionToken) await ctx.rt.sessions.signOut(ctx.sessionToken, { ip: ctx.clientIp });
    ctx.resHeaders.append("set-cookie", sessionCookie(session.token, ctx.secureCookies));
    ctx.resHeaders.append("set-cookie", deviceCookie(session.deviceCookie, ctx.secureCookies));
    return { user: session.user };
  }),
});
