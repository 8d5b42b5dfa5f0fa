/**
 * The `data` of test messages (docs/contract.md section 6, "Test messages"): `webhook.test`'s note, or an example
 * of an event type shaped exactly as that event's `data`, about animal or category 0, an id nothing has (ids
 * start at 1), so that a receiver can try its handling of every type without touching a real record.
 */
import { WEBHOOK_TEST_EVENT_TYPE, type WebhookTestType } from "@petstore/contracts";

const ANIMAL = { id: 0, name: "Example animal", categoryId: 0, status: "available" };
const CATEGORY = { id: 0, name: "Example category" };
const ORDER = {
  id: 0,
  petId: 0,
  status: "placed",
  createdAt: "2026-01-01T12:00:00.000Z",
  holdUntil: "2026-01-01T12:30:00.000Z",
  closedAt: null,
};

/**
 * The `data` of a test message of `type` sent to endpoint `endpointId`.
 * @returns a JSON-ready object (see the module comment)
 */
export function testMessageData(type: WebhookTestType, endpointId: string): Record<string, unknown> {
  switch (type) {
    case WEBHOOK_TEST_EVENT_TYPE:
      return { endpointId, message: "A test message from the Pet Store. No action is needed." };
    case "pet.created":
    case "pet.deleted":
      return { ...ANIMAL };
    case "pet.updated":
      return { ...ANIMAL, previous: { status: "pending" } };
    case "order.placed":
      return { ...ORDER };
    case "order.completed":
    case "order.cancelled":
      return { ...ORDER, status: type.slice("order.".length), closedAt: "2026-01-01T12:10:00.000Z" };
    case "order.expired":
      return { ...ORDER, status: "expired", closedAt: ORDER.holdUntil };
    case "category.created":
    case "category.deleted":
      return { ...CATEGORY };
    case "category.updated":
      return { ...CATEGORY, previous: { name: "Former example category" } };
    case "usage.threshold":
      return {
        accountId: "00000000-0000-4000-8000-000000000001",
        accountName: "Example account",
        window: "month",
        threshold: 80,
        limit: 100_000,
        count: 80_000,
        resetsAt: "2026-02-01T00:00:00.000Z",
      };
    case "key.leaked":
      return {
        id: "00000000-0000-4000-8000-000000000002",
        prefix: "pet_live_Exa",
        name: "Example key",
        accountId: "00000000-0000-4000-8000-000000000001",
        leakedAt: "2026-01-01T12:00:00.000Z",
        source: "github",
        url: "https://github.com/example/repository/blob/0000000/config.js",
        revoked: true,
      };
  }
}
