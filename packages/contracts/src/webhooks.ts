/**
 * Webhooks (docs/contract.md section 6): the event types, and the inputs of the dashboard's and the CLI's
 * endpoint management, delivery log and replay. Whether a URL may be called (https, public addresses) needs
 * DNS and is decided in core (`packages/core/src/webhooks/targets.ts`); here a URL only has to be one.
 */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./defaults.ts";
import { humanText } from "./text.ts";
import { z } from "./zod.ts";

/** The events an endpoint can subscribe to, in the order the dashboard lists them. */
export const WEBHOOK_EVENT_TYPES = [
  "pet.created",
  "pet.updated",
  "pet.deleted",
  "order.placed",
  "order.completed",
  "order.cancelled",
  "order.expired",
  "category.created",
  "category.updated",
  "category.deleted",
  "usage.threshold",
  "key.leaked",
] as const;

export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES, {
  error: `must be one of ${WEBHOOK_EVENT_TYPES.join(", ")}`,
});
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** The type of the message `webhooks test` sends; no endpoint subscribes to it. */
export const WEBHOOK_TEST_EVENT_TYPE = "webhook.test";

/** What a test message can be: `webhook.test`, or an example of an event type (docs/contract.md section 6). */
export const WebhookTestType = z.enum([WEBHOOK_TEST_EVENT_TYPE, ...WEBHOOK_EVENT_TYPES], {
  error: `must be one of ${[WEBHOOK_TEST_EVENT_TYPE, ...WEBHOOK_EVENT_TYPES].join(", ")}`,
});
export type WebhookTestType = z.infer<typeof WebhookTestType>;

/** Longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/** An absolute http(s) URL without credentials or fragment; the scheme and address rules are core's. */
export const WebhookUrl = z
  .string({ error: "must be a URL" })
  .trim()
  .min(1, { error: "must not be empty" })
  .max(MAX_WEBHOOK_URL_LENGTH, { error: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` })
  .refine((v) => URL.canParse(v), {
    error: "must be a full URL such as https://example.com/webhooks",
    abort: true,
  })
  .refine((v) => ["http:", "https:"].includes(new URL(v).protocol), {
    error: "must start with https://",
    abort: true,
  })
  .refine((v) => !new URL(v).username && !new URL(v).password, {
    error: "must not contain a user name or password",
    abort: true,
  })
  .refine((v) => !v.includes("#"), { error: "must not contain a fragment (#…)" });

/** The subscribed event types: at least one, each once (duplicates are dropped), in the canonical order. */
export const WebhookEventTypes = z
  .array(WebhookEventType, { error: "must be a list of event types" })
  .min(1, { error: "choose at least one event type" })
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .transform((types) => WEBHOOK_EVENT_TYPES.filter((t) => types.includes(t)));

export const WebhookDescription = humanText({ max: 200, allowEmpty: true });

export const WebhookEndpointId = z.uuid({ error: "must be a webhook endpoint id" });

/** `msg_` and 32 hexadecimal digits: the `webhook-id` of a message. */
export const WebhookMessageId = z
  .string()
  .trim()
  .regex(/^msg_[0-9a-f]{32}$/, { error: "must be a message id such as msg_0f3c…" });

export const WebhookEndpointCreate = z.strictObject({
  url: WebhookUrl,
  eventTypes: WebhookEventTypes,
  description: WebhookDescription.default(""),
});
export type WebhookEndpointCreate = z.infer<typeof WebhookEndpointCreate>;

/** An edit: only the fields given change. */
export const WebhookEndpointUpdate = z.strictObject({
  id: WebhookEndpointId,
  url: WebhookUrl.optional(),
  eventTypes: WebhookEventTypes.optional(),
  description: WebhookDescription.optional(),
});
export type WebhookEndpointUpdate = z.infer<typeof WebhookEndpointUpdate>;

export const WebhookEndpointRef = z.strictObject({ id: WebhookEndpointId });

/** A test message to send to an endpoint now: `webhook.test` unless another type is asked for. */
export const WebhookTestMessage = z.strictObject({
  id: WebhookEndpointId,
  type: WebhookTestType.default(WEBHOOK_TEST_EVENT_TYPE),
});
export type WebhookTestMessage = z.infer<typeof WebhookTestMessage>;

/** Outcome filter of the delivery log. */
export const WebhookAttemptOutcome = z.enum(["succeeded", "failed"]);
export type WebhookAttemptOutcome = z.infer<typeof WebhookAttemptOutcome>;

/** One page of an endpoint's delivery log (attempts, newest first). */
export const WebhookDeliveryLogQuery = z.strictObject({
  endpointId: WebhookEndpointId,
  outcome: WebhookAttemptOutcome.optional(),
  page: z.int().min(1).default(1),
  pageSize: z.int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
});
export type WebhookDeliveryLogQuery = z.infer<typeof WebhookDeliveryLogQuery>;

export const WebhookMessageRef = z.strictObject({ id: WebhookMessageId });

/** Replays one message, to one endpoint or (without `endpointId`) to every endpoint it was queued for. */
export const WebhookReplayMessage = z.strictObject({
  messageId: WebhookMessageId,
  endpointId: WebhookEndpointId.optional(),
});
export type WebhookReplayMessage = z.infer<typeof WebhookReplayMessage>;

const instant = z.iso.datetime({
  offset: true,
  error: "must be a date and time such as 2026-01-31T12:00:00Z",
});

/**
 * Replays the messages of an endpoint's event types that occurred in `[since, until)` (until: now), or with
 * `failedOnly` only those whose delivery to it failed.
 */
export const WebhookReplayRange = z
  .strictObject({
    endpointId: WebhookEndpointId,
    since: instant,
    until: instant.optional(),
    failedOnly: z.boolean().default(false),
  })
  .refine((v) => !v.until || Date.parse(v.since) < Date.parse(v.until), {
    path: ["until"],
    message: "must be after the start of the range",
  });
export type WebhookReplayRange = z.infer<typeof WebhookReplayRange>;
