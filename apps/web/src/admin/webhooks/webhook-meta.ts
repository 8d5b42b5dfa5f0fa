/** Labels shared by the webhook pages (docs/contract.md section 6). */
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@petstore/contracts";

/** What each event type means, for the checkboxes of the endpoint form. */
export const EVENT_TYPE_LABELS: Record<WebhookEventType, string> = {
  "pet.created": "An animal is added",
  "pet.updated": "An animal is changed (name, category or status)",
  "pet.deleted": "An animal is deleted",
  "order.placed": "An API client orders an animal",
  "order.completed": "An order is completed (the animal is sold)",
  "order.cancelled": "An order is cancelled",
  "order.expired": "An order's hold lapses",
  "category.created": "A category is added",
  "category.updated": "A category is renamed",
  "category.deleted": "A category is deleted",
};

export const EVENT_TYPE_OPTIONS = WEBHOOK_EVENT_TYPES.map((value) => ({
  value,
  label: EVENT_TYPE_LABELS[value],
}));

/** Colour of a delivery's state badge. */
export const DELIVERY_STATE_COLORS = { pending: "yellow", succeeded: "teal", failed: "red" } as const;

/** `204 in 35 ms`, `No answer: connection refused`. */
export function attemptSummary(a: {
  status: number | null;
  durationMs: number | null;
  error: string | null;
}) {
  if (a.status === null) return `No answer: ${a.error ?? "unknown error"}`;
  return `${a.status} in ${a.durationMs ?? 0} ms`;
}
