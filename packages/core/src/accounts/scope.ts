/** One consumer account's scope (docs/architecture.md "Accounts scoped in core"; docs/contract.md section 7). */
import type { MemberRole, RequestLogFilter } from "@petstore/contracts";
import type { ApiKeyService } from "../api-keys/service.ts";
import type { Actor } from "../deps.ts";
import type { OrdersService } from "../orders/service.ts";
import type { MonthQuota } from "../ratelimit/types.ts";
import type { RequestLogService } from "../usage/request-log.ts";
import type { UsageService } from "../usage/service.ts";
import type { Webhooks } from "../webhooks/index.ts";
import type { InvitationService } from "./invitations.ts";
import type { AccountService } from "./service.ts";

export interface ScopedServices {
  accounts: AccountService;
  invitations: InvitationService;
  apiKeys: ApiKeyService;
  usage: UsageService;
  requestLog: RequestLogService;
  webhooks: Webhooks;
  orders: OrdersService;
  /** The month's progress of a rate-limit subject against `perMonth` (the limiter's `monthQuota`). */
  monthQuota(subject: string, perMonth: number | null): Promise<MonthQuota | null>;
}

/** A row as an account sees it: without who made it (a store admin's address, for what the store made). */
const withoutAuthor = <R extends { createdBy: string }>({ createdBy: _, ...row }: R) => row;

/** @returns `forAccount(accountId)`: the services below, each refusing another account's ids as not_found. */
export function createAccountScopes(s: ScopedServices) {
  return function forAccount(accountId: string) {
    const keys = s.apiKeys.forAccount(accountId);
    const orders = s.orders.of({ accountId });
    return {
      id: accountId,

      /**
       * The account's orders (orders/service.ts): a page newest first (`search`), one order (`get`), and a placed one
       * cancelled, audited with the member as actor (`cancel`); completing is the API client's step.
       * @throws not_found for another account's order, conflict for one no longer placed.
       */
      orders: {
        search: orders.search,
        get: orders.view,
        cancel: (id: number, actor: Actor) => orders.cancel(id, actor),
      },

      /**
       * The account: plan and limits, state, live keys, members, open invitations, and its keys' requests today
       * as the usage page sums them (stored and this instance's unflushed counts). @throws not_found.
       */
      async get() {
        const [{ createdBy: _, invitations, ...account }, today] = await Promise.all([
          s.accounts.get(accountId),
          keys.list().then((all) => s.usage.withRequestsToday(all)),
        ]);
        return {
          ...account,
          requestsToday: today.reduce((n, k) => n + k.requestsToday, 0),
          invitations: invitations.map(withoutAuthor),
          perMinute: account.limits.perMinute,
          perDay: account.limits.perDay,
          perMonth: account.limits.perMonth,
        };
      },

      /**
       * The month's progress against the monthly quota the account's keys share (the limiter's count); null
       * without a quota. @throws not_found; rejects when the rate-limit store fails.
       */
      async monthQuota(): Promise<MonthQuota | null> {
        const account = await s.accounts.get(accountId);
        return s.monthQuota(account.id, account.limits.perMonth);
      },

      /** Sets the account's usage alert thresholds (audited with the member as actor). */
      setAlertThresholds: (thresholds: number[], actor: Actor) =>
        s.accounts.setAlertThresholds({ id: accountId, thresholds }, actor),

      /** Requires (or not) a second factor of the account's members (owners; audited with the member as actor). */
      setRequireTwoFactor: (required: boolean, actor: Actor) =>
        s.accounts.setRequireTwoFactor({ id: accountId, required }, actor),

      /** The account's usage for billing in the UTC month `YYYY-MM` (usage/billing.ts). */
      billing: (month: string) => s.usage.billing(month, accountId),

      keys: {
        list: async () => (await s.usage.withRequestsToday(await keys.list())).map(withoutAuthor),
        async get(id: string) {
          const key = await keys.get(id);
          return withoutAuthor({ ...key, requestsToday: await s.usage.requestsToday(key.id) });
        },
        create: keys.create,
        roll: keys.roll,
        revoke: async (id: string, actor: Actor) => withoutAuthor(await keys.revoke(id, actor)),
        /** Replaces the key's IP allowlist (normalized entries; empty: from anywhere), audited. */
        changeAllowlist: async (id: string, allowedIps: readonly string[], actor: Actor) =>
          withoutAuthor(await keys.changeAllowlist(id, allowedIps, actor)),
        traffic: async (id: string, days: number) => s.usage.traffic(await keys.require(id), days),
        recentRequests: async (id: string) => s.usage.recentRequests(await keys.require(id)),
      },

      webhooks: s.webhooks.forAccount(accountId),

      /** All keys' traffic (24 h by hour, `days` by day) and each key's requests today, in 7 and 30 days. */
      async usage(days: number) {
        const all = await keys.list();
        const [traffic, perKey] = await Promise.all([
          s.usage.traffic(
            all.map((k) => k.id),
            days,
          ),
          s.usage.withRequestsToday(all).then((withToday) => s.usage.withWindowSums(withToday)),
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
      },

      async requestLog({ keyId, ...filter }: RequestLogFilter) {
        const apiKeyId = keyId === undefined ? undefined : await keys.require(keyId);
        return s.requestLog.search(accountId, { ...filter, apiKeyId });
      },

      invite: (input: { email: string; role: MemberRole }, actor: Actor) =>
        s.invitations.invite(accountId, input, actor),
      setMemberRole: (input: { id: string; role: MemberRole }, actor: Actor) =>
        s.accounts.setMemberRole({ accountId, ...input }, actor),
      removeMember: (id: string, actor: Actor) => s.accounts.removeMember({ accountId, id }, actor),
    };
  };
}

/** One account's services (`runtime.forAccount(accountId)`). */
export type AccountScope = ReturnType<ReturnType<typeof createAccountScopes>>;
