/**
 * The developer portal (docs/contract.md section 7): member procedures act through `ctx.account`, the account's
 * scope (docs/architecture.md "Accounts scoped in core"); the invitation procedures are public.
 */
import {
  AccountUsageRange,
  AlertThresholdsChange,
  ApiKeyAllowlistChange,
  ApiKeyRef,
  ApiKeyRoll,
  InvitationAccept,
  InvitationCreate,
  InvitationToken,
  MemberRef,
  MemberRoleChange,
  OrderRef,
  OrderSearch,
  PortalKeyCreate,
  RequestLogFilter,
  TwoFactorRequirement,
  UsageRange,
} from "@petstore/contracts";
import { z } from "zod";
import { deviceCookie, sessionCookie } from "../cookies";
import { memberProcedure, ownerProcedure, publicProcedure, router } from "../init";
import { webhookRouter } from "./webhooks";

/** The account's keys (core's `forAccount(…).keys`); the secrets of `create` and `roll` are shown once. */
const keysRouter = router({
  list: memberProcedure.query(({ ctx }) => ctx.account.keys.list()),
  get: memberProcedure.input(ApiKeyRef).query(({ ctx, input }) => ctx.account.keys.get(input.id)),
  create: memberProcedure
    .input(PortalKeyCreate)
    .mutation(({ ctx, input }) => ctx.account.keys.create(input, ctx.actor)),
  roll: memberProcedure
    .input(ApiKeyRoll)
    .mutation(({ ctx, input }) => ctx.account.keys.roll(input.id, input.graceSeconds, ctx.actor)),
  revoke: memberProcedure
    .input(ApiKeyRef)
    .mutation(({ ctx, input }) => ctx.account.keys.revoke(input.id, ctx.actor)),
  /** Replaces the key's IP allowlist (audited; empty lifts it). */
  changeAllowlist: memberProcedure
    .input(ApiKeyAllowlistChange)
    .mutation(({ ctx, input }) => ctx.account.keys.changeAllowlist(input.id, input.allowedIps, ctx.actor)),
  traffic: memberProcedure
    .input(UsageRange)
    .query(({ ctx, input }) => ctx.account.keys.traffic(input.id, input.days)),
  recentRequests: memberProcedure
    .input(ApiKeyRef)
    .query(({ ctx, input }) => ctx.account.keys.recentRequests(input.id)),
});

/**
 * The account's orders (core's `forAccount(…).orders`): a page, one order, and cancelling a placed one; completing
 * is the API client's step (docs/contract.md section 7, "Orders in the portal").
 */
const ordersRouter = router({
  search: memberProcedure
    .input(
      OrderSearch.refine((v) => v.accountId === undefined, {
        path: ["accountId"],
        message: "is always the member's own account",
      }),
    )
    .query(({ ctx, input }) => ctx.account.orders.search(input)),
  get: memberProcedure.input(OrderRef).query(({ ctx, input }) => ctx.account.orders.get(input.id)),
  cancel: memberProcedure
    .input(OrderRef)
    .mutation(({ ctx, input }) => ctx.account.orders.cancel(input.id, ctx.actor)),
});

export const portalRouter = router({
  /** The account as core's scope shows it, and the member's role. */
  account: memberProcedure.query(async ({ ctx }) => ({ ...(await ctx.account.get()), role: ctx.user.role })),
  /** The month's progress against the monthly quota the account's keys share; null without one. */
  monthQuota: memberProcedure.query(({ ctx }) => ctx.account.monthQuota()),
  keys: keysRouter,
  orders: ordersRouter,
  webhooks: webhookRouter(
    memberProcedure.use(({ ctx, next }) => next({ ctx: { webhooks: ctx.account.webhooks } })),
  ),
  usage: memberProcedure
    .input(AccountUsageRange.prefault({}))
    .query(({ ctx, input }) => ctx.account.usage(input.days)),
  requestLog: memberProcedure
    .input(RequestLogFilter.prefault({}))
    .query(({ ctx, input }) => ctx.account.requestLog(input)),

  /** Owners only: invite a member (the link is in this response only), change a role, remove a member. */
  /** Owners only: the account's usage alert thresholds (percent of its day and month windows). */
  setAlertThresholds: ownerProcedure
    .input(AlertThresholdsChange)
    .mutation(({ ctx, input }) => ctx.account.setAlertThresholds(input.thresholds, ctx.actor)),
  /** Owners only: whether the account's members must sign in with a second factor (audited). */
  setRequireTwoFactor: ownerProcedure
    .input(TwoFactorRequirement)
    .mutation(({ ctx, input }) => ctx.account.setRequireTwoFactor(input.required, ctx.actor)),
  invite: ownerProcedure
    .input(InvitationCreate)
    .mutation(({ ctx, input }) => ctx.account.invite(input, ctx.actor)),
  setMemberRole: ownerProcedure
    .input(MemberRoleChange)
    .mutation(({ ctx, input }) => ctx.account.setMemberRole(input, ctx.actor)),
  removeMember: ownerProcedure
    .input(MemberRef)
    .mutation(({ ctx, input }) => ctx.account.removeMember(input.id, ctx.actor)),

  /** What an invitation link offers (account, email, role), while it can be accepted. NOT_FOUND otherwise. */
  invitation: publicProcedure
    .input(z.strictObject({ token: InvitationToken }))
    .query(({ ctx, input }) => ctx.rt.invitations.preview(input.token)),

  /** Accepts an invitation and signs the new member in. NOT_FOUND (used, expired, unknown), CONFLICT (taken). */
  acceptInvitation: publicProcedure.input(InvitationAccept).mutation(async ({ ctx, input }) => {
    const { email } = await ctx.rt.invitations.accept(input);
    const session = await ctx.rt.sessions.signIn(
      { email, password: input.password },
      { ip: ctx.clientIp, userAgent: ctx.userAgent, deviceCookie: ctx.deviceCookie },
    );
    if (ctx.sessionToken) await ctx.rt.sessions.signOut(ctx.sessionToken, { ip: ctx.clientIp });
    ctx.resHeaders.append("set-cookie", sessionCookie(session.token, ctx.secureCookies));
    ctx.resHeaders.append("set-cookie", deviceCookie(session.deviceCookie, ctx.secureCookies));
    return { user: session.user, stage: session.stage };
  }),
});
