/**
 * API keys (admins): the searchable, paged list with requests today, one key with its 30-day usage, issue
 * (secret returned once), revoke, mark as leaked, roll, change plan/limits, change scopes or IP allowlist, lift a ban, reset today's usage. Every usage
 * figure comes from the core usage service (stored and not yet flushed counters), the same numbers the
 * overview shows. Lifting a ban and resetting usage go through the runtime, which clears the rate
 * limiter's state as well as the database's.
 */
import {
  ApiKeyAllowlistChange,
  ApiKeyCreate,
  ApiKeyPlanChange,
  ApiKeyRef,
  ApiKeyRoll,
  ApiKeyScopesChange,
  ApiKeySearch,
  BrownoutCreate,
  BrownoutRef,
  DeprecatedCallsQuery,
  KeyUsageDay,
  UsageRange,
} from "@petstore/contracts";
import { adminProcedure, router } from "../init";

export const apiKeysRouter = router({
  /**
   * One page of keys (search, plan and state filters; newest first with exact and prefix matches first, by last
   * use or by getPet calls), each with its requests today and its getPet calls of the last 30 days.
   */
  list: adminProcedure.input(ApiKeySearch.prefault({})).query(async ({ ctx, input }) => {
    const page = await ctx.rt.apiKeys.search(input);
    const rows = await ctx.rt.usage.withRequestsToday(page.rows);
    return { total: page.total, rows: await ctx.rt.usage.withWindowSums(rows) };
  }),

  /**
   * One page of the keys that called the deprecated getPet in the last 7 or 30 days (docs/contract.md section 4
   * "API keys"): name, prefix, plan, state, calls and the hour of the last call; most calls first or latest
   * call first. The whole view as CSV: GET /api/keys/deprecated-calls/export.
   */
  deprecatedCalls: adminProcedure
    .input(DeprecatedCallsQuery.prefault({}))
    .query(({ ctx, input }) => ctx.rt.usage.deprecatedCalls(input)),

  /** getPet's brownouts that end after 30 days ago, soonest first (docs/contract.md section 4 "Brownouts"). */
  brownouts: adminProcedure.query(({ ctx }) => ctx.rt.brownouts.list()),

  /** Schedules a brownout (audited): 400 in the past or past the sunset, 409 over another one. */
  scheduleBrownout: adminProcedure
    .input(BrownoutCreate)
    .mutation(({ ctx, input }) => ctx.rt.brownouts.schedule(input, ctx.actor)),

  /** Cancels a brownout (audited); a running one ends now. */
  cancelBrownout: adminProcedure
    .input(BrownoutRef)
    .mutation(({ ctx, input }) => ctx.rt.brownouts.cancel(input.id, ctx.actor)),

  get: adminProcedure.input(ApiKeyRef).query(async ({ ctx, input }) => {
    const key = await ctx.rt.apiKeys.get(input.id);
    return { ...key, requestsToday: await ctx.rt.usage.requestsToday(key.id) };
  }),

  /** Daily requests, 429s, bans and deprecated getPet calls, oldest first, zero-filled. */
  usage: adminProcedure.input(UsageRange).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.get(input.id);
    return ctx.rt.usage.daily(input.id, input.days);
  }),

  /**
   * The key's analytics: last 24 h by hour and `days` days by day (outcome counts, p50/p95 latency), breakdown
   * by operation and outcome, requests today.
   */
  traffic: adminProcedure.input(UsageRange).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.get(input.id);
    return ctx.rt.usage.traffic(input.id, input.days);
  }),

  /**
   * The key's chosen UTC day by hour: each hour's requests by outcome, its 429s split into minute window, day
   * window (and window not recorded) and ban, and p50/p95 latency. `day` is `YYYY-MM-DD`: 400 for a malformed,
   * future or older-than-retention day.
   */
  dayByHour: adminProcedure.input(KeyUsageDay).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.get(input.id);
    return ctx.rt.usage.dayByHour(input.id, input.day);
  }),

  /** The month's progress against the quota the key counts against (its account's, else its plan's); null: none. */
  monthQuota: adminProcedure.input(ApiKeyRef).query(async ({ ctx, input }) => {
    const { rateLimitSubject, perMonth } = await ctx.rt.apiKeys.quotaOf(input.id);
    return ctx.rt.rateLimiter.monthQuota(rateLimitSubject, perMonth);
  }),

  /** The key's last 100 requests, newest first (time, operation, status, duration, client IP, request id). */
  recentRequests: adminProcedure.input(ApiKeyRef).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.get(input.id);
    return ctx.rt.usage.recentRequests(input.id);
  }),

  /** Issues a key. The secret (`key`) is in this response only. */
  create: adminProcedure
    .input(ApiKeyCreate)
    .mutation(({ ctx, input }) => ctx.rt.apiKeys.create(input, ctx.actor)),

  revoke: adminProcedure
    .input(ApiKeyRef)
    .mutation(({ ctx, input }) => ctx.rt.apiKeys.revoke(input.id, ctx.actor)),

  /**
   * Marks the key as leaked (docs/contract.md section 2, "Leaked keys"): revoked, or only marked with
   * LEAKED_KEYS_ACTION=flag; audited, a `key.leaked` event and a mail to its account's owners (else the admins).
   * 400 for a revoked or expired key.
   */
  markLeaked: adminProcedure.input(ApiKeyRef).mutation(async ({ ctx, input }) => {
    await ctx.rt.leakedKeys.mark(input.id, ctx.actor);
    return ctx.rt.apiKeys.get(input.id);
  }),

  /** New key with the same settings; the old one works for `graceSeconds` more. Secret returned once. */
  roll: adminProcedure
    .input(ApiKeyRoll)
    .mutation(({ ctx, input }) => ctx.rt.apiKeys.roll(input.id, input.graceSeconds, ctx.actor)),

  changePlan: adminProcedure
    .input(ApiKeyPlanChange)
    .mutation(({ ctx, input }) =>
      ctx.rt.apiKeys.update(
        { id: input.id, plan: input.plan, perMinute: input.perMinute ?? null, perDay: input.perDay ?? null },
        ctx.actor,
      ),
    ),

  /** Replaces the key's scopes (audited); every instance applies them within 5 s. */
  changeScopes: adminProcedure
    .input(ApiKeyScopesChange)
    .mutation(({ ctx, input }) => ctx.rt.apiKeys.changeScopes(input.id, input.scopes, ctx.actor)),

  /** Replaces the key's IP allowlist (audited; empty lifts it); every instance applies it within 5 s. */
  changeAllowlist: adminProcedure
    .input(ApiKeyAllowlistChange)
    .mutation(({ ctx, input }) => ctx.rt.apiKeys.changeAllowlist(input.id, input.allowedIps, ctx.actor)),

  /** Lifts the ban in the rate-limit store and the database (audited). */
  liftBan: adminProcedure
    .input(ApiKeyRef)
    .mutation(({ ctx, input }) => ctx.rt.unbanApiKey(input.id, ctx.actor)),

  /** Resets today's counters in the rate-limit store and the usage table (audited). */
  resetUsage: adminProcedure.input(ApiKeyRef).mutation(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.get(input.id);
    await ctx.rt.resetApiKeyUsage(input.id, ctx.actor);
    return { id: input.id };
  }),
});
