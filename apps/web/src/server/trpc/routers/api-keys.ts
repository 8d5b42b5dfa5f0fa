/**
 * API keys (admins): list with requests today, one key with its 30-day usage, issue (secret returned once),
 * revoke, roll, change plan/limits, lift a ban, reset today's usage. Lifting a ban and resetting usage also
 * go to the rate limiter through its seam (`rateLimiterControls`).
 */
import { ApiKeyCreate, ApiKeyPlanChange, ApiKeyRef, ApiKeyRoll, UsageRange } from "@petstore/contracts";
import { rateLimiterControls } from "@petstore/core";
import { adminProcedure, router } from "../init";

export const apiKeysRouter = router({
  list: adminProcedure.query(async ({ ctx }) => {
    const [keys, today] = await Promise.all([ctx.rt.apiKeys.list(), ctx.rt.usage.requestsToday()]);
    return keys.map((k) => ({ ...k, requestsToday: today.get(k.id) ?? 0 }));
  }),

  get: adminProcedure.input(ApiKeyRef).query(async ({ ctx, input }) => {
    const key = await ctx.rt.apiKeys.get(input.id);
    const today = await ctx.rt.usage.requestsToday();
    return { ...key, requestsToday: today.get(key.id) ?? 0 };
  }),

  /** Daily requests, 429s, bans and deprecated getPet calls, oldest first, zero-filled. */
  usage: adminProcedure.input(UsageRange).query(async ({ ctx, input }) => {
    await ctx.rt.apiKeys.get(input.id);
    return ctx.rt.usage.daily(input.id, input.days);
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

  changePlan: adminProcedure.input(ApiKeyPlanChange).mutation(({ ctx, input }) =>
    ctx.rt.apiKeys.update(
      {
        id: input.id,
        plan: input.plan,
        perMinute: input.perMinute ?? null,
        perDay: input.perDay ?? null,
      },
      ctx.actor,
    ),
  ),

  liftBan: adminProcedure.input(ApiKeyRef).mutation(async ({ ctx, input }) => {
    const key = await ctx.rt.apiKeys.clearBan(input.id, ctx.actor);
    await rateLimiterControls(ctx.rt).unban?.(input.id);
    return key;
  }),

  resetUsage: adminProcedure.input(ApiKeyRef).mutation(async ({ ctx, input }) => {
    await ctx.rt.usage.resetToday(input.id, ctx.actor);
    await rateLimiterControls(ctx.rt).resetUsage?.(input.id);
    return { id: input.id };
  }),
});
