/**
 * API keys (admins): list with requests today, one key with its 30-day usage, issue (secret returned once),
 * revoke, roll, change plan/limits, lift a ban, reset today's usage. Lifting a ban and resetting usage go
 * through the runtime, which clears the rate limiter's state as well as the database's. "Today" adds the
 * limiter's not yet flushed counters to the stored ones, so the numbers are current.
 */
import { ApiKeyCreate, ApiKeyPlanChange, ApiKeyRef, ApiKeyRoll, UsageRange } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { adminProcedure, router } from "../init";

/** Requests today per key: stored rows plus this instance's pending counters. */
async function requestsToday(rt: Runtime): Promise<(keyId: string) => number> {
  const stored = await rt.usage.requestsToday();
  return (keyId) => (stored.get(keyId) ?? 0) + rt.rateLimiter.usageToday(keyId).requests;
}

export const apiKeysRouter = router({
  list: adminProcedure.query(async ({ ctx }) => {
    const [keys, today] = await Promise.all([ctx.rt.apiKeys.list(), requestsToday(ctx.rt)]);
    return keys.map((k) => ({ ...k, requestsToday: today(k.id) }));
  }),

  get: adminProcedure.input(ApiKeyRef).query(async ({ ctx, input }) => {
    const [key, today] = await Promise.all([ctx.rt.apiKeys.get(input.id), requestsToday(ctx.rt)]);
    return { ...key, requestsToday: today(key.id) };
  }),

  /** Daily requests, 429s, bans and deprecated getPet calls, oldest first, zero-filled. */
  usage: adminProcedure.input(UsageRange).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.get(input.id);
    const days = await ctx.rt.usage.daily(input.id, input.days);
    const pending = ctx.rt.rateLimiter.usageToday(input.id);
    const today = days.at(-1);
    if (today) {
      today.requests += pending.requests;
      today.rateLimited += pending.rateLimited;
      today.bans += pending.bans;
      today.deprecatedGet += pending.deprecatedGet;
    }
    return days;
  }),

  /** Issues a key. The secret (`key`) is in this response only. */
  create: adminProcedure
    .input(ApiKeyCreate)
    .mutation(({ ctx, input }) => ctx.rt.apiKeys.create(input, ctx.actor)),

  revoke: adminProcedure
    .input(ApiKeyRef)
    .mutation(({ ctx, input }) => ctx.rt.apiKeys.revoke(input.id, ctx.actor)),

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
