/**
 * The developer portal (`/portal`; docs/contract.md section 7): what a member of a consumer account does for the
 * account alone. Every procedure takes the account from the member's session (`ctx.accountId`), never from its
 * input, and every id it takes is checked to belong to that account first, with the same NOT_FOUND for an id of
 * another account as for one that does not exist. Accepting an invitation is public and signs the new member in.
 */
import {
  AccountUsageRange,
  ApiKeyRef,
  ApiKeyRoll,
  AppError,
  InvitationAccept,
  InvitationCreate,
  InvitationToken,
  MemberRef,
  MemberRoleChange,
  PortalKeyCreate,
  RequestLogFilter,
  UsageRange,
} from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { z } from "zod";
import { deviceCookie, sessionCookie } from "../cookies";
import { memberProcedure, ownerProcedure, publicProcedure, router } from "../init";
import { portalWebhooksRouter } from "./portal-webhooks";

/** A key or invitation as a member sees it: without who made it (an admin's address, for the store's). */
const memberView = <K extends { createdBy: string }>({ createdBy: _, ...row }: K) => row;

const keysRouter = router({
  /** The account's keys, newest first, each with its requests today. */
  list: memberProcedure.query(async ({ ctx }) => {
    const keys = await ctx.rt.apiKeys.listOfAccount(ctx.accountId);
    return (await ctx.rt.usage.withRequestsToday(keys)).map(memberView);
  }),

  /** One key of the account with its requests today. */
  get: memberProcedure.input(ApiKeyRef).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.assertInAccount(ctx.accountId, input.id);
    const key = await ctx.rt.apiKeys.get(input.id);
    return memberView({ ...key, requestsToday: await ctx.rt.usage.requestsToday(key.id) });
  }),

  /**
   * Issues a key of the account on its plan; the secret (`key`) is in this response only. CONFLICT when the
   * account is suspended or holds as many live keys as its plan allows.
   */
  create: memberProcedure
    .input(PortalKeyCreate)
    .mutation(({ ctx, input }) => ctx.rt.apiKeys.createInAccount(ctx.accountId, input, ctx.actor)),

  /**
   * New key with the same settings; the old one works for `graceSeconds` more. Secret returned once. CONFLICT
   * while the account is suspended (its keys are refused).
   */
  roll: memberProcedure.input(ApiKeyRoll).mutation(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.assertInAccount(ctx.accountId, input.id);
    if ((await ctx.rt.accounts.get(ctx.accountId)).state === "suspended")
      throw new AppError("conflict", "This account is suspended: its keys cannot be used or rolled.");
    return ctx.rt.apiKeys.roll(input.id, input.graceSeconds, ctx.actor);
  }),

  revoke: memberProcedure.input(ApiKeyRef).mutation(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.assertInAccount(ctx.accountId, input.id);
    return ctx.rt.apiKeys.revoke(input.id, ctx.actor);
  }),

  /** The key's last 24 h by hour and `days` days by day, by outcome and operation. */
  traffic: memberProcedure.input(UsageRange).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.assertInAccount(ctx.accountId, input.id);
    return ctx.rt.usage.traffic(input.id, input.days);
  }),

  /** The key's last 100 requests, newest first (time, operation, status, duration, request id). */
  recentRequests: memberProcedure.input(ApiKeyRef).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.assertInAccount(ctx.accountId, input.id);
    return ctx.rt.usage.recentRequests(input.id);
  }),
});

/** An account's usage, for the portal and the admin's account page. */
export async function accountUsage(rt: Runtime, accountId: string, days: number) {
  const keys = await rt.apiKeys.listOfAccount(accountId);
  const [traffic, perKey] = await Promise.all([
    rt.usage.traffic(
      keys.map((k) => k.id),
      days,
    ),
    rt.usage.withRequestsToday(keys).then((withToday) => rt.usage.withWindowSums(withToday)),
  ]);
  return {
    traffic,
    keys: perKey.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      state: k.state,
      requestsToday: k.requestsToday,
      requests7d: k.requests7d,
      requests30d: k.requests30d,
    })),
  };
}

export const portalRouter = router({
  /** The member's account: name, plan and its limits, state, live keys against the cap, members, invitations. */
  account: memberProcedure.query(async ({ ctx }) => {
    const { createdBy: _, invitations, ...account } = await ctx.rt.accounts.get(ctx.accountId);
    return {
      ...account,
      invitations: invitations.map(memberView),
      perMinute: account.limits.perMinute,
      perDay: account.limits.perDay,
      role: ctx.user.role,
    };
  }),

  keys: keysRouter,

  webhooks: portalWebhooksRouter,

  /**
   * The account's usage: every key's requests summed by hour (last 24 h) and by day (`days`), by operation and by
   * outcome; each key's requests today and in the last 7 and 30 days. The limits are `account`'s.
   */
  usage: memberProcedure
    .input(AccountUsageRange.prefault({}))
    .query(({ ctx, input }) => accountUsage(ctx.rt, ctx.accountId, input.days)),

  /**
   * The account's request log (every request of the last 7 days, up to 100,000), newest first, filtered by key,
   * status or class, operation, time range or `X-Request-Id`; `nextCursor` pages on.
   */
  requestLog: memberProcedure.input(RequestLogFilter.prefault({})).query(async ({ ctx, input }) => {
    if (input.keyId) await ctx.rt.apiKeys.assertInAccount(ctx.accountId, input.keyId);
    const { keyId, ...rest } = input;
    return ctx.rt.requestLog.search(ctx.accountId, { ...rest, apiKeyId: keyId });
  }),

  /** Invites a member (owners only); the link is in this response only, valid 72 h, single use. */
  invite: ownerProcedure
    .input(InvitationCreate)
    .mutation(({ ctx, input }) => ctx.rt.invitations.invite(ctx.accountId, input, ctx.actor)),

  /**
   * Makes a member of the account an owner or a developer (owners only; oneself too). NOT_FOUND for an id that is
   * no member of the account; CONFLICT when it would leave the account without an owner.
   */
  setMemberRole: ownerProcedure
    .input(MemberRoleChange)
    .mutation(({ ctx, input }) =>
      ctx.rt.accounts.setMemberRole({ accountId: ctx.accountId, ...input }, ctx.actor),
    ),

  /**
   * Removes a member from the account (owners only; oneself too), ending their sessions at once. NOT_FOUND for an
   * id that is no member of the account; CONFLICT for the account's last owner.
   */
  removeMember: ownerProcedure
    .input(MemberRef)
    .mutation(({ ctx, input }) =>
      ctx.rt.accounts.removeMember({ accountId: ctx.accountId, id: input.id }, ctx.actor),
    ),

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
