/**
 * One consumer account's scope: every service a member reaches, bound to the account (docs/architecture.md
 * "Accounts scoped in core"; docs/contract.md section 7, "Isolation").
 */
import type { MemberRole, PortalKeyCreate, RequestLogFilter } from "@petstore/contracts";
import type { ApiKeyService } from "../api-keys/service.ts";
import type { Actor } from "../deps.ts";
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
}

/** A row as an account sees it: without who made it (a store admin's address, for what the store made). */
const withoutAuthor = <R extends { createdBy: string }>({ createdBy: _, ...row }: R) => row;

/** @returns `forAccount(accountId)`: the services below, each refusing another account's ids as not_found. */
export function createAccountScopes(s: ScopedServices) {
  return function forAccount(accountId: string) {
    const keys = s.apiKeys.forAccount(accountId);
    return {
      id: accountId,

      /** The account: plan and limits, state, live keys, members, open invitations. @throws not_found. */
      async get() {
        const { createdBy: _, invitations, ...account } = await s.accounts.get(accountId);
        return {
          ...account,
          invitations: invitations.map(withoutAuthor),
          perMinute: account.limits.perMinute,
          perDay: account.limits.perDay,
        };
      },

      /** The account's keys; caps and suspension are checked by the key service (api-keys/service.ts). */
      keys: {
        /** Newest first, each with its requests today. */
        list: async () => (await s.usage.withRequestsToday(await keys.list())).map(withoutAuthor),
        /** One key with its lineage and requests today. */
        async get(id: string) {
          const key = await keys.get(id);
          return withoutAuthor({ ...key, requestsToday: await s.usage.requestsToday(key.id) });
        },
        create: (input: PortalKeyCreate, actor: Actor) => keys.create(input, actor),
        roll: (id: string, graceSeconds: number, actor: Actor) => keys.roll(id, graceSeconds, actor),
        revoke: async (id: string, actor: Actor) => withoutAuthor(await keys.revoke(id, actor)),
        /** The key's last 24 h by hour and `days` days by day, by outcome and operation. */
        traffic: async (id: string, days: number) => s.usage.traffic(await keys.require(id), days),
        /** The key's latest requests, newest first. */
        recentRequests: async (id: string) => s.usage.recentRequests(await keys.require(id)),
      },

      /** The account's webhook endpoints, their deliveries and messages (webhooks/endpoints.ts). */
      webhooks: s.webhooks.forAccount(accountId),

      /**
       * Every key's requests summed by hour (last 24 h) and by day (`days`), by operation and outcome; each
       * key's requests today and in the last 7 and 30 days.
       */
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

      /** One page of the account's request log (usage/request-log.ts `search`). */
      async requestLog({ keyId, ...filter }: RequestLogFilter) {
        const apiKeyId = keyId === undefined ? undefined : await keys.require(keyId);
        return s.requestLog.search(accountId, { ...filter, apiKeyId });
      },

      /** Invites a member; the link is in this result only. */
      invite: (input: { email: string; role: MemberRole }, actor: Actor) =>
        s.invitations.invite(accountId, input, actor),
      /** @throws not_found for an id that is no member of the account; conflict for the last owner. */
      setMemberRole: (input: { id: string; role: MemberRole }, actor: Actor) =>
        s.accounts.setMemberRole({ accountId, ...input }, actor),
      /** Removes a member, ending their sessions. @throws not_found, conflict (the last owner). */
      removeMember: (id: string, actor: Actor) => s.accounts.removeMember({ accountId, id }, actor),
    };
  };
}

/** One account's services (`runtime.forAccount(accountId)`). */
export type AccountScope = ReturnType<ReturnType<typeof createAccountScopes>>;
