/**
 * Webhook endpoints (docs/contract.md sections 6 and 7): one router for admins (the store's endpoints) and for
 * members (their account's), over core's endpoint service of the caller's scope.
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
import type { WebhookEndpoints } from "@petstore/core";
import type { TRPCProcedureBuilder, TRPCUnsetMarker } from "@trpc/server";
import type { TrpcContext } from "../context";
import { adminProcedure, router } from "../init";

/** What the webhook procedures see: the endpoints of the caller's scope and who acts, not the runtime. */
type WebhookContext = { webhooks: WebhookEndpoints; actor: string; rt: never };
type U = TRPCUnsetMarker;
type WebhookProcedure = TRPCProcedureBuilder<TrpcContext, object, WebhookContext, U, U, U, U, false>;

/** The webhook procedures on `procedure`, whose context carries the scope's endpoint service. */
export function webhookRouter(procedure: WebhookProcedure) {
  return router({
    /** The endpoints in scope (oldest first) with pending deliveries and the last 7 days' success rate. */
    list: procedure.query(({ ctx }) => ctx.webhooks.list()),

    get: procedure.input(WebhookEndpointRef).query(({ ctx, input }) => ctx.webhooks.get(input.id)),

    /** Registers an endpoint (https, public address). The secret is in this response only. */
    create: procedure
      .input(WebhookEndpointCreate)
      .mutation(({ ctx, input }) => ctx.webhooks.create(input, ctx.actor)),

    update: procedure
      .input(WebhookEndpointUpdate)
      .mutation(({ ctx, input }) => ctx.webhooks.update(input, ctx.actor)),

    enable: procedure
      .input(WebhookEndpointRef)
      .mutation(({ ctx, input }) => ctx.webhooks.enable(input.id, ctx.actor)),

    /** Nothing more is sent; pending deliveries fail. */
    disable: procedure
      .input(WebhookEndpointRef)
      .mutation(({ ctx, input }) => ctx.webhooks.disable(input.id, ctx.actor)),

    /** New secret (in this response only); the old one keeps signing for 24 h. */
    rotate: procedure
      .input(WebhookEndpointRef)
      .mutation(({ ctx, input }) => ctx.webhooks.rotate(input.id, ctx.actor)),

    remove: procedure.input(WebhookEndpointRef).mutation(async ({ ctx, input }) => {
      await ctx.webhooks.remove(input.id, ctx.actor);
      return { id: input.id };
    }),

    /** Sends a test message (`webhook.test`, or an example of an event type) now and reports the attempt. */
    sendTest: procedure.input(WebhookTestMessage).mutation(async ({ ctx, input }) => {
      const { messageId, attempt } = await ctx.webhooks.sendTest(input.id, ctx.actor, input.type);
      return {
        messageId,
        outcome: attempt?.outcome ?? null,
        status: attempt?.status ?? null,
        durationMs: attempt?.durationMs ?? null,
        error: attempt?.error ?? null,
      };
    }),

    /** One page of the endpoint's attempts, newest first, optionally by outcome. */
    deliveryLog: procedure
      .input(WebhookDeliveryLogQuery)
      .query(({ ctx, input }) => ctx.webhooks.deliveryLog(input)),

    /** A message: its body and, per endpoint in scope, the delivery and its attempts. */
    message: procedure.input(WebhookMessageRef).query(({ ctx, input }) => ctx.webhooks.message(input.id)),

    /** Sends a message again (same webhook-id), to one endpoint or to those in scope it went to. */
    replayMessage: procedure.input(WebhookReplayMessage).mutation(async ({ ctx, input }) => ({
      queued: await ctx.webhooks.replayMessage(input, ctx.actor),
    })),

    /** Sends again an endpoint's messages of a time range (or only its failed ones). */
    replayRange: procedure.input(WebhookReplayRange).mutation(async ({ ctx, input }) => ({
      queued: await ctx.webhooks.replayRange(input, ctx.actor),
    })),
  });
}

/** The admins' webhook procedures: every endpoint of the store, the accounts' included. */
export const webhooksRouter = webhookRouter(
  adminProcedure.use(({ ctx, next }) => next({ ctx: { webhooks: ctx.rt.webhooks, rt: undefined as never } })),
);
