/**
 * The portal's webhook endpoints (docs/contract.md sections 6 and 7): a member manages the endpoints of their own
 * account as admins manage the store's: register (secret returned once), edit, enable/disable, rotate, delete, send
 * a test message of any event type, the delivery log with each endpoint's success rate, a message with its attempts,
 * and replay of a message or a time range. Every endpoint id is checked to be the account's first; a message is
 * shown with its deliveries to the account's endpoints only.
 */
import {
  WebhookDeliveryLogQuery,
  WebhookEndpointCreate,
  WebhookEndpointId,
  WebhookEndpointRef,
  WebhookEndpointUpdate,
  WebhookMessageRef,
  WebhookReplayMessage,
  WebhookReplayRange,
  WebhookTestMessage,
} from "@petstore/contracts";
import { memberProcedure, router } from "../init";

/** A member's procedure whose input names endpoint `endpointOf(input)`, checked to be the account's. */
const owned = <T>(endpointOf: (input: T) => unknown) =>
  memberProcedure.use(async ({ ctx, next, getRawInput }) => {
    const id = endpointOf((await getRawInput()) as T);
    // An input without a well-formed id is refused by the procedure's input schema, which runs next.
    const parsed = WebhookEndpointId.safeParse(id);
    if (parsed.success) await ctx.rt.webhooks.assertInAccount(ctx.accountId, parsed.data);
    return next();
  });

const byId = owned<{ id?: unknown } | undefined>((input) => input?.id);
const byEndpointId = owned<{ endpointId?: unknown } | undefined>((input) => input?.endpointId);

export const portalWebhooksRouter = router({
  /** The account's endpoints, oldest first, with pending deliveries and the last 7 days' success rate. */
  list: memberProcedure.query(({ ctx }) => ctx.rt.webhooks.list(ctx.accountId)),

  get: byId.input(WebhookEndpointRef).query(({ ctx, input }) => ctx.rt.webhooks.get(input.id)),

  /** Registers an endpoint of the account (https, public address). The secret is in this response only. */
  create: memberProcedure
    .input(WebhookEndpointCreate)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.create(input, ctx.actor, ctx.accountId)),

  update: byId
    .input(WebhookEndpointUpdate)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.update(input, ctx.actor)),

  enable: byId
    .input(WebhookEndpointRef)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.enable(input.id, ctx.actor)),

  disable: byId
    .input(WebhookEndpointRef)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.disable(input.id, ctx.actor)),

  /** New secret (in this response only); the old one keeps signing for 24 h. */
  rotate: byId
    .input(WebhookEndpointRef)
    .mutation(({ ctx, input }) => ctx.rt.webhooks.rotate(input.id, ctx.actor)),

  remove: byId.input(WebhookEndpointRef).mutation(async ({ ctx, input }) => {
    await ctx.rt.webhooks.remove(input.id, ctx.actor);
    return { id: input.id };
  }),

  /** Sends a test message (`webhook.test`, or an example of any event type) now and reports the attempt. */
  sendTest: byId.input(WebhookTestMessage).mutation(async ({ ctx, input }) => {
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
  deliveryLog: byEndpointId
    .input(WebhookDeliveryLogQuery)
    .query(({ ctx, input }) => ctx.rt.webhooks.deliveryLog(input)),

  /** A message: its body and its deliveries to the account's endpoints, with their attempts. */
  message: memberProcedure
    .input(WebhookMessageRef)
    .query(({ ctx, input }) => ctx.rt.webhooks.messageOfAccount(ctx.accountId, input.id)),

  /** Sends a message again (same webhook-id) to one of the account's endpoints. */
  replayMessage: byEndpointId
    .input(WebhookReplayMessage.required({ endpointId: true }))
    .mutation(async ({ ctx, input }) => ({ queued: await ctx.rt.webhooks.replayMessage(input, ctx.actor) })),

  /** Sends again an endpoint's messages of a time range (or only its failed ones). */
  replayRange: byEndpointId
    .input(WebhookReplayRange)
    .mutation(async ({ ctx, input }) => ({ queued: await ctx.rt.webhooks.replayRange(input, ctx.actor) })),
});
