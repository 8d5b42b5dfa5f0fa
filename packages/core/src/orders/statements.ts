/**
 * The store section's statements (docs/architecture.md "Orders"): each change of an order and its animal is one
 * statement carrying its webhook events; orders are locked before animals everywhere.
 */
import type { Order, OrderStatus } from "@petstore/contracts";
import { Prisma, type QueryRows } from "@petstore/db";
import { animalJsonSql, outboxCtes } from "../webhooks/outbox.ts";

/** An order as the statements return it. */
export interface OrderRow {
  id: bigint;
  petId: bigint;
  accountId: string | null;
  apiKeyId: string;
  status: OrderStatus;
  createdAt: string;
  holdUntil: string;
  closedAt: string | null;
}

/** Whose orders a statement may touch: an account's, a key's outside accounts, or every order (the store's). */
export type OrderOwner = { accountId: string } | { apiKeyId: string } | "store";

/** The public Order of a row (docs/contract.md section 1). */
export function toOrder(row: OrderRow): Order {
  return {
    id: Number(row.id),
    petId: Number(row.petId),
    status: row.status,
    createdAt: row.createdAt,
    holdUntil: row.holdUntil,
    closedAt: row.closedAt,
  };
}

/** A timestamp as JavaScript's `toISOString` writes it (UTC, milliseconds). */
const iso = (column: Prisma.Sql) =>
  Prisma.sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The columns of `OrderRow` read from the `Order` row `alias`. */
export function orderColumns(alias: string): Prisma.Sql {
  const o = Prisma.raw(alias);
  return Prisma.sql`${o}."id", ${o}."petId", ${o}."accountId"::text AS "accountId", ${o}."apiKeyId"::text AS "apiKeyId",
    ${o}."status"::text AS "status", ${iso(Prisma.sql`${o}."createdAt"`)} AS "createdAt",
    ${iso(Prisma.sql`${o}."holdUntil"`)} AS "holdUntil",
    CASE WHEN ${o}."closedAt" IS NULL THEN NULL ELSE ${iso(Prisma.sql`${o}."closedAt"`)} END AS "closedAt"`;
}

/** The Order of the `Order` row `alias` as compact JSON text, in the REST shape and key order (toOrder). */
function orderJsonSql(alias: string): Prisma.Sql {
  const o = Prisma.raw(alias);
  return Prisma.sql`format('{"id":%s,"petId":%s,"status":%s,"createdAt":%s,"holdUntil":%s,"closedAt":%s}',
    ${o}."id", ${o}."petId", to_json(${o}."status"::text), to_json(${iso(Prisma.sql`${o}."createdAt"`)}),
    to_json(${iso(Prisma.sql`${o}."holdUntil"`)}),
    CASE WHEN ${o}."closedAt" IS NULL THEN 'null' ELSE to_json(${iso(Prisma.sql`${o}."closedAt"`)})::text END)`;
}

/** `pet.updated`'s data for the `Pet` row `alias` whose status was `previous` (webhooks/outbox.ts `petUpdatedData`). */
function statusChangedJsonSql(alias: string, previous: string): Prisma.Sql {
  return Prisma.sql`left(${animalJsonSql(alias)}, -1) || ${`,"previous":{"status":"${previous}"}}`}`;
}

/** SQL condition: the `Order` row `alias` belongs to `owner`. */
export function ownedBy(alias: string, owner: OrderOwner): Prisma.Sql {
  const o = Prisma.raw(alias);
  if (owner === "store") return Prisma.sql`TRUE`;
  return "accountId" in owner
    ? Prisma.sql`${o}."accountId" = ${owner.accountId}::uuid`
    : Prisma.sql`${o}."apiKeyId" = ${owner.apiKeyId}::uuid AND ${o}."accountId" IS NULL`;
}

const at = (date: Date) => Prisma.sql`${date.toISOString()}::timestamptz`;

/**
 * Places an order of animal `petId` when it is `available`: the animal becomes `pending` and the order `placed`
 * until `holdUntil`, with `order.placed` and `pet.updated`, in one statement. Of concurrent placements of one
 * animal the row lock lets one through; the partial unique index of placed orders refuses any other.
 * @returns the order and the deliveries queued, or undefined when the animal was not available.
 * @throws the driver's unique violation when another placed order holds the animal.
 */
export async function placeOrder(
  queryRows: QueryRows,
  input: { petId: bigint; accountId: string | null; apiKeyId: string; now: Date; holdUntil: Date },
): Promise<{ order: OrderRow; queued: number } | undefined> {
  const [row] = await queryRows<OrderRow & { queued: number }>(Prisma.sql`
    WITH held AS (
      UPDATE "Pet" SET "status" = 'pending', "updatedAt" = now()
      WHERE "id" = ${input.petId} AND "status" = 'available'
      RETURNING "id", "name", "categoryId", "status"
    ), placed AS (
      INSERT INTO "Order" ("petId", "accountId", "apiKeyId", "status", "createdAt", "holdUntil")
      SELECT "id", ${input.accountId}::uuid, ${input.apiKeyId}::uuid, 'placed', ${at(input.now)}, ${at(input.holdUntil)}
      FROM held
      RETURNING *
    ), events AS (
      SELECT 'order.placed' AS "type", ${orderJsonSql("placed")} AS "data", placed."accountId" FROM placed
      UNION ALL
      SELECT 'pet.updated', ${statusChangedJsonSql("held", "available")}, NULL::uuid FROM held
    ), ${outboxCtes(Prisma.sql`SELECT * FROM events`)}
    SELECT ${orderColumns("placed")}, (SELECT count(*) FROM webhook_queued)::int AS "queued" FROM placed`);
  if (!row) return undefined;
  const { queued, ...order } = row;
  return { order, queued };
}

/** What stands in the way of ordering an animal: its status, and the placed order holding it if any. */
export interface PetHold {
  status: string | null;
  orderId: bigint | null;
  holdUntil: Date | null;
}

/** The animal `petId`'s status and its placed order; undefined when there is no such animal. */
export async function petHold(queryRows: QueryRows, petId: bigint): Promise<PetHold | undefined> {
  const [row] = await queryRows<PetHold>(Prisma.sql`
    SELECT p."status"::text AS "status", o."id" AS "orderId", o."holdUntil"
    FROM "Pet" p LEFT JOIN "Order" o ON o."petId" = p."id" AND o."status" = 'placed'
    WHERE p."id" = ${petId}`);
  return row;
}

/** The final state an order moves to, and its animal's. */
export const CLOSING = {
  complete: { order: "completed", pet: "sold", event: "order.completed" },
  cancel: { order: "cancelled", pet: "available", event: "order.cancelled" },
} as const;
export type Closing = keyof typeof CLOSING;

/**
 * Completes or cancels order `id` of `owner` when it is placed and its hold has not lapsed at `now`: the order
 * and its animal change with their events in one statement (the order's row is locked first).
 * @returns the order after the change and the deliveries queued, or undefined when nothing changed.
 */
export async function closeOrder(
  queryRows: QueryRows,
  input: { id: bigint; owner: OrderOwner; closing: Closing; now: Date },
): Promise<{ order: OrderRow; queued: number } | undefined> {
  const to = CLOSING[input.closing];
  const [row] = await queryRows<OrderRow & { queued: number }>(Prisma.sql`
    WITH closed AS (
      UPDATE "Order" o SET "status" = ${to.order}::"OrderStatus", "closedAt" = ${at(input.now)}
      WHERE o."id" = ${input.id} AND ${ownedBy("o", input.owner)}
        AND o."status" = 'placed' AND o."holdUntil" > ${at(input.now)}
      RETURNING o.*
    ), moved AS (
      UPDATE "Pet" p SET "status" = ${to.pet}::"PetStatus", "updatedAt" = now()
      FROM closed WHERE p."id" = closed."petId" AND p."status" = 'pending'
      RETURNING p."id", p."name", p."categoryId", p."status"
    ), events AS (
      SELECT ${to.event}::text AS "type", ${orderJsonSql("closed")} AS "data", closed."accountId" FROM closed
      UNION ALL
      SELECT 'pet.updated', ${statusChangedJsonSql("moved", "pending")}, NULL::uuid FROM moved
    ), ${outboxCtes(Prisma.sql`SELECT * FROM events`)}
    SELECT ${orderColumns("closed")}, (SELECT count(*) FROM webhook_queued)::int AS "queued" FROM closed`);
  if (!row) return undefined;
  const { queued, ...order } = row;
  return { order, queued };
}

/** Which lapsed holds to expire: those of some animals, one order, or up to `limit` due ones (the sweep). */
export type Lapsed = { petIds: bigint[] } | { orderId: bigint } | { due: number };

/**
 * Expires the placed orders of `which` whose hold lapsed by `now`: each order `expired` (`closedAt` its
 * `holdUntil`) and its animal `available`, with `order.expired` and `pet.updated`, in one statement. The sweep's
 * selection skips orders and animals other transactions hold locked (`FOR UPDATE SKIP LOCKED`), so instances
 * sweeping at once share the work and a sweep never waits on a request.
 * @returns the expired orders and the deliveries queued.
 */
export async function expireHolds(
  queryRows: QueryRows,
  which: Lapsed,
  now: Date,
): Promise<{ orders: OrderRow[]; queued: number }> {
  const lapsed = Prisma.sql`o."status" = 'placed' AND o."holdUntil" <= ${at(now)}`;
  const selection =
    "due" in which
      ? Prisma.sql`SELECT o."id" FROM "Order" o JOIN "Pet" p ON p."id" = o."petId" WHERE ${lapsed}
                   ORDER BY o."holdUntil" LIMIT ${which.due} FOR UPDATE OF o, p SKIP LOCKED`
      : "orderId" in which
        ? Prisma.sql`SELECT o."id" FROM "Order" o WHERE o."id" = ${which.orderId} AND ${lapsed}`
        : Prisma.sql`SELECT o."id" FROM "Order" o WHERE o."petId" = ANY(${which.petIds}::bigint[]) AND ${lapsed}`;
  const rows = await queryRows<OrderRow & { queued: number }>(Prisma.sql`
    WITH due AS (${selection}), expired AS (
      UPDATE "Order" o SET "status" = 'expired', "closedAt" = o."holdUntil"
      FROM due WHERE o."id" = due."id" AND ${lapsed}
      RETURNING o.*
    ), released AS (
      UPDATE "Pet" p SET "status" = 'available', "updatedAt" = now()
      FROM expired WHERE p."id" = expired."petId" AND p."status" = 'pending'
      RETURNING p."id", p."name", p."categoryId", p."status"
    ), events AS (
      SELECT 'order.expired' AS "type", ${orderJsonSql("expired")} AS "data", expired."accountId" FROM expired
      UNION ALL
      SELECT 'pet.updated', ${statusChangedJsonSql("released", "pending")}, NULL::uuid FROM released
    ), ${outboxCtes(Prisma.sql`SELECT * FROM events`)}
    SELECT ${orderColumns("expired")}, (SELECT count(*) FROM webhook_queued)::int AS "queued" FROM expired
    ORDER BY expired."id"`);
  return {
    orders: rows.map(({ queued: _queued, ...order }) => order),
    queued: rows[0]?.queued ?? 0,
  };
}

/**
 * Locks the placed orders of the animals `petIds` (in id order), before the animals' rows: a transaction that
 * changes animals takes the orders that hold them first, as every statement here does.
 * @returns the placed orders, by animal.
 */
export async function lockHolds(
  tx: { $queryRaw: Prisma.TransactionClient["$queryRaw"] },
  petIds: bigint[],
): Promise<Map<bigint, { id: bigint; holdUntil: Date }>> {
  if (petIds.length === 0) return new Map();
  const rows = await tx.$queryRaw<{ id: bigint; petId: bigint; holdUntil: Date }[]>`
    SELECT "id", "petId", "holdUntil" FROM "Order"
    WHERE "petId" = ANY(${petIds}::bigint[]) AND "status" = 'placed' ORDER BY "id" FOR UPDATE`;
  return new Map(rows.map((r) => [r.petId, { id: r.id, holdUntil: r.holdUntil }]));
}

/** The placed orders of the animals `petIds`, by animal, read without a lock. */
export async function placedHolds(
  tx: { $queryRaw: Prisma.TransactionClient["$queryRaw"] },
  petIds: bigint[],
): Promise<Map<bigint, { id: bigint; holdUntil: Date }>> {
  const rows = await tx.$queryRaw<{ id: bigint; petId: bigint; holdUntil: Date }[]>`
    SELECT "id", "petId", "holdUntil" FROM "Order" WHERE "petId" = ANY(${petIds}::bigint[]) AND "status" = 'placed'`;
  return new Map(rows.map((r) => [r.petId, { id: r.id, holdUntil: r.holdUntil }]));
}
