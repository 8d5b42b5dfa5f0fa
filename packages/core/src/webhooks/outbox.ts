/**
 * The webhook outbox (docs/contract.md section 6, "Written with the change"): every change to an animal or a
 * category writes its event in the same database transaction, or the same single statement, as the change
 * itself, so that neither is ever committed without the other. With the event, one delivery row is queued
 * per enabled endpoint subscribed to its type; the dispatcher (dispatcher.ts) sends them after the commit.
 *
 * An event is stored only when at least one endpoint, enabled or disabled, that it may reach subscribes to its
 * type: a deployment without webhooks writes nothing more per change, and a disabled endpoint can still replay
 * what it missed (endpoints.ts). The events of an order (`order.*`), of an account's usage (`usage.*`) and of a key
 * (`key.*`) reach the endpoints of that consumer account and the store's own, never another account's (`reaches`);
 * every other event reaches every endpoint.
 */
import type { Animal, WebhookEventType } from "@petstore/contracts";
import { Prisma } from "@petstore/db";

/** An event to store: its type, the body's `data` (docs/contract.md section 6, "Events"), and for an `order.*`
 * event the consumer account of its order (null or absent: an order of a key outside accounts), for `usage.*` the
 * account whose usage it reports, for `key.*` the account of the key (null: a key outside accounts). */
export interface OutboxEvent {
  type: WebhookEventType | "webhook.test";
  data: Record<string, unknown>;
  accountId?: string | null;
}

/**
 * SQL condition: the event `e` (a `WebhookEvent` row, or a row with `type` and `accountId`) may reach the endpoint
 * `ep`: an `order.*`, `usage.*` or `key.*` event only the store's endpoints and those of its account, any other event every
 * endpoint (docs/contract.md section 6, "Events"). Subscription is checked apart.
 */
export function reaches(e: string, ep: string): Prisma.Sql {
  const [event, endpoint] = [Prisma.raw(e), Prisma.raw(ep)];
  return Prisma.sql`((${event}."type" NOT LIKE 'order.%' AND ${event}."type" NOT LIKE 'usage.%' AND ${event}."type" NOT LIKE 'key.%') OR ${endpoint}."accountId" IS NULL OR ${endpoint}."accountId" = ${event}."accountId")`;
}

/** What can run a raw statement: the Prisma client or an interactive transaction. */
export type RawQuerier = { $queryRaw: Prisma.TransactionClient["$queryRaw"] };

/** Told how many deliveries a committed change queued, so the dispatcher can send them at once. */
export type QueuedListener = (deliveries: number) => void;

/**
 * The `data` of `pet.updated`: the Animal after the change (REST shape) and, under `previous`, the value
 * before it of every field that changed (`status: null` when it was unset). Undefined when nothing changed.
 */
export function petUpdatedData(
  after: Animal,
  before: Animal,
): (Animal & { previous: Record<string, unknown> }) | undefined {
  const previous: Record<string, unknown> = {};
  for (const field of ["name", "categoryId", "status"] as const)
    if (after[field] !== before[field]) previous[field] = before[field] ?? null;
  return Object.keys(previous).length ? { ...after, previous } : undefined;
}

/**
 * The smallest message id written at or after `at`: ids begin with the time they were written, in
 * milliseconds as 12 hex digits, so a range of time is a range of ids (the primary key's index).
 */
export function messageIdFloor(at: Date): string {
  return `msg_${Math.max(0, Math.floor(at.getTime())).toString(16).padStart(12, "0")}`;
}

/**
 * Common table expressions to splice into a `WITH` list after `source`, a query (or CTE name) yielding
 * `type`, `data` (compact JSON text) and `accountId` (uuid: an `order.*` event's account; null otherwise)
 * columns: `webhook_events` inserts the events that some endpoint they may reach subscribes to, `webhook_queued`
 * queues their deliveries to the enabled ones. The statement's result can read
 * `(SELECT count(*) FROM webhook_queued)`. `type`, when every row has that one type (and is no `order.*`
 * type), lets the database ask whether anyone subscribes once per statement rather than once per row.
 */
export function outboxCtes(source: Prisma.Sql, type?: OutboxEvent["type"]): Prisma.Sql {
  const subscribed = type
    ? Prisma.sql`EXISTS (SELECT 1 FROM "WebhookEndpoint" ep WHERE ${type}::text = ANY (ep."eventTypes"))`
    : Prisma.sql`EXISTS (SELECT 1 FROM "WebhookEndpoint" ep WHERE s."type" = ANY (ep."eventTypes") AND ${reaches("s", "ep")})`;
  return Prisma.sql`webhook_events AS (
      INSERT INTO "WebhookEvent" ("type", "data", "accountId")
      SELECT s."type", s."data", s."accountId" FROM (${source}) AS s
      WHERE ${subscribed}
      RETURNING "id", "type", "accountId"
    ), webhook_queued AS (
      INSERT INTO "WebhookDelivery" ("eventId", "endpointId")
      SELECT e."id", ep."id" FROM webhook_events e
      JOIN "WebhookEndpoint" ep ON ep."enabled" AND e."type" = ANY (ep."eventTypes") AND ${reaches("e", "ep")}
      RETURNING 1
    )`;
}

/**
 * The Animal of a `Pet` row (alias `row`) as compact JSON text in the REST shape (docs/interface.md "Animal"):
 * `id`, `name`, `categoryId`, and `status` only when set, in that order, so that a message's body can be
 * spliced together without parsing it (dispatcher.ts `messageBody`).
 */
export function animalJsonSql(row: string): Prisma.Sql {
  const r = Prisma.raw(row);
  return Prisma.sql`format('{"id":%s,"name":%s,"categoryId":%s%s}', ${r}."id", to_json(${r}."name"::text),
    ${r}."categoryId", CASE WHEN ${r}."status" IS NULL THEN '' ELSE format(',"status":%s', to_json(${r}."status"::text)) END)`;
}

/**
 * Stores `events` through `db` (inside the caller's transaction when `db` is one) and queues their deliveries.
 * @returns the number of deliveries queued (0 when nobody subscribes).
 */
export async function recordEvents(db: RawQuerier, events: readonly OutboxEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const [row] = await db.$queryRaw<{ queued: number }[]>`
    WITH ${outboxCtes(Prisma.sql`
      SELECT t."type", t."data", t."accountId"
      FROM unnest(${events.map((e) => e.type)}::text[], ${events.map((e) => JSON.stringify(e.data))}::text[],
                  ${events.map((e) => e.accountId ?? null)}::uuid[])
        AS t("type", "data", "accountId")`)}
    SELECT (SELECT count(*) FROM webhook_queued)::int AS "queued"`;
  return row?.queued ?? 0;
}
