/**
 * Webhook endpoints (admins; docs/contract.md section 6): list, register (secret returned once), edit,
 * enable/disable, rotate the secret (returned once), delete, send a test message; each endpoint's delivery
 * log, one message with its attempts, and replay. Everything goes through core's webhook service, which
 * audits every change.
 */
import {
  WebhookDeliveryLogQuery,
  WebhookEndpointCreate,
  WebhookEndpointRef,
  WebhookEndpointUpdate,
  WebhookMessageRef,
  WebhookReplayMessage,
  WebhookReplayRange,
  WebhookTestMessage,
} from "@petstore/contracts";
import { adminProcedure, router } from "../init";

export const webhooksRouter = router({
  /** Every endpoint (oldest first) with its pending deliveries. */
  list: adminProcedure.query(({ ctx }) => ctx.rt.webhooks.list()),

  get: adminProcedure.input(WebhookEndpointRef).query(({ ctx, input }) => ctx.rt.webhooks.get(input.id)),

  /** Registers an endpoint (https, public address). The secret is in this response only. */
  create: adminProcedure
    .input(WebhookEndpointCreate)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.create(input, ctx.actor)),

  update: adminProcedure
    .input(WebhookEndpointUpdate)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.update(input, ctx.actor)),

  enable: adminProcedure
    .input(WebhookEndpointRef)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.enable(input.id, ctx.actor)),

  /** Nothing more is sent; pending deliveries fail. */
  disable: adminProcedure
    .input(WebhookEndpointRef)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.disable(input.id, ctx.actor)),

  /** New secret (in this response only); the old one keeps signing for 24 h. */
  rotate: adminProcedure
    .input(WebhookEndpointRef)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.rotate(input.id, ctx.actor)),

  remove: adminProcedure.input(WebhookEndpointRef).mutation(async ({ ctx, input }) => {
    await ctx.rt.webhooks.remove(input.id, ctx.actor);
    return { id: input.id };
  }),

  /** Sends a test message (`webhook.test`, or an example of an event type) now and reports the attempt. */
  sendTest: adminProcedure.input(WebhookTestMessage).mutation(async ({ ctx, input }) => {
    const { messageId, attempt } = await ctx.rt.webhooks.sendTest(input.id, ctx.actor, input.type);
    return {
      messageId,
      outcome: attempt?.outcome ?? null,
      status: attempt?.status ?? null,
      durationMs: attempt?.durationMs ?? null,
      error: attempt?.error ?? null,
    };
  }),

  /** One page of the endpoint's attempts, newest first, optionally by outcome. */
  deliveryLog: adminProcedure
    .input(WebhookDeliveryLogQuery)
    .query(({ ctx, input }) => ctx.rt.webhooks.deliveryLog(input)),

  /** A message: its body and, per endpoint, the delivery and its attempts. */
  message: adminProcedure
    .input(WebhookMessageRef)
    .query(({ ctx, input }) => ctx.rt.webhooks.message(input.id)),

  /** Sends a message again (same webhook-id). */
  replayMessage: adminProcedure.input(WebhookReplayMessage).mutation(async ({ ctx, input }) => ({
    queued: await ctx.rt.webhooks.replayMessage(input, ctx.actor),
  })),

  /** Sends again an endpoint's messages of a time range (or only its failed ones). */
  replayRange: adminProcedure.input(WebhookReplayRange).mutation(async ({ ctx, input }) => ({
    queued: await ctx.rt.webhooks.replayRange(input, ctx.actor),
  })),
});
