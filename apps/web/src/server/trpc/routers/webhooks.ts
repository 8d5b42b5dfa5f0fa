/**
 * Webhook endpoints (docs/contract.md sections 6 and 7): one router for admins (the store's endpoints) and members
 * (their account's), over core's endpoint service of the procedure's scope (docs/architecture.md).
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

/** The webhook procedures on `procedure`, whose context carries the scope's endpoints (secrets shown once). */
export function webhookRouter(procedure: WebhookProcedure) {
  return router({
    list: procedure.query(({ ctx }) => ctx.webhooks.list()),
    get: procedure.input(WebhookEndpointRef).query(({ ctx, input }) => ctx.webhooks.get(input.id)),
    create: procedure
      .input(WebhookEndpointCreate)
      .mutation(({ ctx, input }) => ctx.webhooks.create(input, ctx.actor)),
    update: procedure
      .input(WebhookEndpointUpdate)
      .mutation(({ ctx, input }) => ctx.webhooks.update(input, ctx.actor)),
    enable: procedure
      .input(WebhookEndpointRef)
      .mutation(({ ctx, input }) => ctx.webhooks.enable(input.id, ctx.actor)),
    disable: procedure
      .input(WebhookEndpointRef)
      .mutation(({ ctx, input }) => ctx.webhooks.disable(input.id, ctx.actor)),
    rotate: procedure
      .input(WebhookEndpointRef)
      .mutation(({ ctx, input }) => ctx.webhooks.rotate(input.id, ctx.actor)),
    remove: procedure.input(WebhookEndpointRef).mutation(async ({ ctx, input }) => {
      await ctx.webhooks.remove(input.id, ctx.actor);
      return { id: input.id };
    }),
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
    deliveryLog: procedure
      .input(WebhookDeliveryLogQuery)
      .query(({ ctx, input }) => ctx.webhooks.deliveryLog(input)),
    message: procedure.input(WebhookMessageRef).query(({ ctx, input }) => ctx.webhooks.message(input.id)),
    replayMessage: procedure.input(WebhookReplayMessage).mutation(async ({ ctx, input }) => ({
      queued: await ctx.webhooks.replayMessage(input, ctx.actor),
    })),
    replayRange: procedure.input(WebhookReplayRange).mutation(async ({ ctx, input }) => ({
      queued: await ctx.webhooks.replayRange(input, ctx.actor),
    })),
  });
}

/** The admins' webhook procedures: every endpoint of the store, the accounts' included. */
export const webhooksRouter = webhookRouter(
  adminProcedure.use(({ ctx, next }) => next({ ctx: { webhooks: ctx.rt.webhooks, rt: undefined as never } })),
);
