/**
 * Consumer accounts, for admins (docs/contract.md section 7, "Admin side"); an account's usage and request log
 * through its scope (docs/architecture.md "Accounts scoped in core"). Every change is audited.
 */
import {
  AccountAlertThresholdsChange,
  AccountCreate,
  AccountId,
  AccountLimitsChange,
  AccountListFilter,
  AccountPlanChange,
  AccountSuspension,
  AccountUsageRange,
  InvitationCreate,
  MemberRef,
  MemberRoleChange,
  RequestLogFilter,
} from "@petstore/contracts";
import { z } from "zod";
import { adminProcedure, router } from "../init";

const AccountRef = z.strictObject({ id: AccountId });

export const accountsRouter = router({
  list: adminProcedure
    .input(AccountListFilter.prefault({}))
    .query(({ ctx, input }) => ctx.rt.accounts.list(input)),

  get: adminProcedure.input(AccountRef).query(async ({ ctx, input }) => {
    const account = await ctx.rt.accounts.get(input.id);
    return { ...account, apiKeys: await ctx.rt.apiKeys.listOfAccount(input.id) };
  }),

  /** The month's progress against the account's monthly quota (null without one), as its members see it. */
  monthQuota: adminProcedure
    .input(AccountRef)
    .query(({ ctx, input }) => ctx.rt.forAccount(input.id).monthQuota()),

  /** The account's usage, as its members see it (portal.usage). */
  usage: adminProcedure
    .input(AccountUsageRange.extend({ accountId: AccountId }))
    .query(async ({ ctx, input }) => {
      await ctx.rt.accounts.get(input.accountId);
      return ctx.rt.forAccount(input.accountId).usage(input.days);
    }),

  /** The account's request log, as its members see it (portal.requestLog). */
  requestLog: adminProcedure
    .input(RequestLogFilter.extend({ accountId: AccountId }))
    .query(async ({ ctx, input: { accountId, ...filter } }) => {
      await ctx.rt.accounts.get(accountId);
      return ctx.rt.forAccount(accountId).requestLog(filter);
    }),

  create: adminProcedure
    .input(AccountCreate)
    .mutation(({ ctx, input }) => ctx.rt.accounts.create(input, ctx.actor)),

  invite: adminProcedure
    .input(InvitationCreate.extend({ accountId: AccountId }))
    .mutation(({ ctx, input }) =>
      ctx.rt.invitations.invite(input.accountId, { email: input.email, role: input.role }, ctx.actor),
    ),

  /** CONFLICT when it would leave the account without an owner. */
  setMemberRole: adminProcedure
    .input(MemberRoleChange.extend({ accountId: AccountId }))
    .mutation(({ ctx, input }) => ctx.rt.accounts.setMemberRole(input, ctx.actor)),

  /** Ends the member's sessions at once. CONFLICT for the account's last owner. */
  removeMember: adminProcedure
    .input(MemberRef.extend({ accountId: AccountId }))
    .mutation(({ ctx, input }) => ctx.rt.accounts.removeMember(input, ctx.actor)),

  setPlan: adminProcedure
    .input(AccountPlanChange)
    .mutation(({ ctx, input }) => ctx.rt.accounts.setPlan(input, ctx.actor)),

  /** The account's own limits, shared by its keys (null: the plan's); needed on Enterprise. */
  setLimits: adminProcedure
    .input(AccountLimitsChange)
    .mutation(({ ctx, input }) => ctx.rt.accounts.setLimits(input, ctx.actor)),

  /** The account's usage alert thresholds (percent of its day and month windows); audited. */
  setAlertThresholds: adminProcedure
    .input(AccountAlertThresholdsChange)
    .mutation(({ ctx, input }) => ctx.rt.accounts.setAlertThresholds(input, ctx.actor)),

  /** Suspending makes every key of the account answer 401 within 5 s on every instance. */
  setSuspended: adminProcedure
    .input(AccountSuspension)
    .mutation(({ ctx, input }) => ctx.rt.accounts.setSuspended(input, ctx.actor)),
});
