/**
 * Orders (docs/contract.md section 1, "The store section"; docs/architecture.md "Orders"): the store's view of every
 * order, and `of(owner)`, one owner's orders only (another owner's id is the same not_found as a missing one).
 */
import {
  AppError,
  COUNT_CAP,
  type Order,
  type OrderCreate,
  type OrderSearch,
  type OrderStatus,
} from "@petstore/contracts";
import { Prisma, type QueryRows } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { createCursorCodec } from "../pets/cursor.ts";
import { isUniqueViolation } from "../pets/database-errors.ts";
import type { QueuedListener } from "../webhooks/outbox.ts";
import {
  CLOSING,
  type Closing,
  closeOrder,
  expireHolds,
  type OrderOwner,
  type OrderRow,
  orderColumns,
  ownedBy,
  petHold,
  placeOrder,
  toOrder,
} from "./statements.ts";

export type { OrderOwner } from "./statements.ts";

/** The owner of an order as a person or a key names it: a consumer account, or a key outside accounts. */
export type Owner = Exclude<OrderOwner, "store">;

/** An order as the store's people see it: who placed it and what it is for. */
export interface OrderView extends Order {
  /** The consumer account it belongs to (null: a key outside accounts). */
  accountId: string | null;
  accountName: string | null;
  apiKeyId: string;
  keyPrefix: string;
  keyName: string;
  /** The animal's name; null when the animal was deleted since. */
  petName: string | null;
}

/** One page of orders for people: newest first, with the number of matches (capped as the dashboard's lists). */
export interface OrderSearchPage {
  rows: OrderView[];
  /** Matches: exact when `totalExact`, else COUNT_CAP (there are more). */
  total: number;
  totalExact: boolean;
}

/** One page of listOrders: the orders, newest first, and the cursor of the next page (absent on the last). */
export interface OrderPage {
  items: Order[];
  nextCursor?: string;
}

type Tx = Prisma.TransactionClient;

const MINUTE_MS = 60_000;

const notFound = (id: bigint | number) => new AppError("not_found", `No order with id ${id}.`);

/** The 409 of an animal that cannot be ordered in its `status` (null: none). */
export function notAvailable(petId: bigint | number, status: string | null): AppError {
  const state = status === null ? "has no status" : `is ${status}`;
  return new AppError("conflict", `Animal ${petId} ${state}: only an available animal can be ordered.`);
}

/** The 409 of an order that is no longer placed. */
function notPlaced(id: bigint | number, status: OrderStatus, closing: Closing): AppError {
  const done = closing === "complete" ? "completed" : "cancelled";
  return new AppError("conflict", `Order ${id} is ${status}: only a placed order can be ${done}.`);
}

/** `WHERE` conditions of a people's search within `owner`. */
function searchConditions(query: Partial<OrderSearch>, owner: OrderOwner): Prisma.Sql {
  const parts = [ownedBy("o", owner)];
  if (query.status) parts.push(Prisma.sql`o."status" = ${query.status}::"OrderStatus"`);
  if (query.accountId) parts.push(Prisma.sql`o."accountId" = ${query.accountId}::uuid`);
  if (query.petId) parts.push(Prisma.sql`o."petId" = ${BigInt(query.petId)}`);
  if (query.id) parts.push(Prisma.sql`o."id" = ${BigInt(query.id)}`);
  if (query.from) parts.push(Prisma.sql`o."createdAt" >= ${query.from}::timestamptz`);
  if (query.to) parts.push(Prisma.sql`o."createdAt" < ${query.to}::timestamptz`);
  return Prisma.join(parts, " AND ");
}

/**
 * @param deps the database, configuration (ORDER_HOLD_MINUTES), clock and logger
 * @param cursorSecret signs listOrders' cursors, apart from the other lists' (pets/cursor.ts)
 * @param onQueued hears of the webhook deliveries each change queued
 */
export function createOrdersService(
  deps: Pick<CoreDeps, "prisma" | "queryRows" | "config" | "clock">,
  cursorSecret: string,
  onQueued: QueuedListener = () => {},
) {
  const { prisma, queryRows, config, clock } = deps;
  const cursors = createCursorCodec(cursorSecret, "orders");
  const inTx =
    (tx: Tx): QueryRows =>
    (query) =>
      tx.$queryRaw(query);

  async function select(q: QueryRows, id: bigint, owner: OrderOwner): Promise<OrderRow | undefined> {
    const [row] = await q<OrderRow>(Prisma.sql`
      SELECT ${orderColumns("o")} FROM "Order" o WHERE o."id" = ${id} AND ${ownedBy("o", owner)}`);
    return row;
  }

  /**
   * Places an order of `input.petId` for `owner`, by the key `apiKeyId`; in `tx` when given (an Idempotency-Key's
   * transaction). A lapsed hold on the animal is expired first. @throws validation_failed (path petId: no such
   * animal), conflict (the animal is not available).
   */
  async function create(
    owner: Owner,
    input: OrderCreate,
    placedBy: { apiKeyId: string },
    tx?: Tx,
  ): Promise<Order> {
    if ("apiKeyId" in owner && owner.apiKeyId !== placedBy.apiKeyId)
      throw new Error("a key outside accounts places orders only for itself");
    const q = tx ? inTx(tx) : queryRows;
    const petId = BigInt(input.petId);
    const now = clock();
    const holdUntil = new Date(now.getTime() + (input.holdMinutes ?? config.orders.holdMinutes) * MINUTE_MS);
    const accountId = "accountId" in owner ? owner.accountId : null;
    for (let attempt = 0; ; attempt++) {
      let placed: Awaited<ReturnType<typeof placeOrder>>;
      try {
        placed = await placeOrder(q, { petId, accountId, apiKeyId: placedBy.apiKeyId, now, holdUntil });
      } catch (error) {
        if (isUniqueViolation(error)) throw notAvailable(petId, "pending");
        throw error;
      }
      if (placed) {
        onQueued(placed.queued);
        return toOrder(placed.order);
      }
      const hold = await petHold(q, petId);
      if (!hold)
        throw new AppError("validation_failed", `Invalid petId: no animal with id ${petId}.`, [
          { path: "petId", message: `no animal with id ${petId}` },
        ]);
      if (attempt === 0 && hold.orderId !== null && hold.holdUntil && hold.holdUntil <= now) {
        onQueued((await expireHolds(q, { orderId: hold.orderId }, now)).queued);
        continue;
      }
      throw notAvailable(petId, hold.status);
    }
  }

  /**
   * Completes or cancels order `id` within `owner` (see `close` in the returned views). Repeating the call that
   * closed the order answers the order as it is; a lapsed hold is expired and refused.
   */
  async function close(owner: OrderOwner, id: bigint, closing: Closing, actor?: Actor): Promise<Order> {
    const run = async (q: QueryRows) => {
      const now = clock();
      for (let attempt = 0; ; attempt++) {
        const closed = await closeOrder(q, { id, owner, closing, now });
        if (closed) return { ...closed, changed: true };
        const current = await select(q, id, owner);
        if (!current) throw notFound(id);
        if (current.status === CLOSING[closing].order) return { order: current, queued: 0, changed: false };
        if (current.status === "placed" && Date.parse(current.holdUntil) <= now.getTime()) {
          const expired = await expireHolds(q, { orderId: id }, now);
          onQueued(expired.queued);
          const after = expired.orders[0] ?? (await select(q, id, owner));
          throw notPlaced(id, after?.status ?? "expired", closing);
        }
        // Placed and not lapsed, yet not closed: a concurrent call changed it between the two statements.
        if (current.status !== "placed" || attempt > 0) throw notPlaced(id, current.status, closing);
      }
    };
    const result = actor
      ? await prisma.$transaction(async (tx) => {
          const r = await run(inTx(tx));
          if (r.changed)
            await writeAudit(tx, {
              actor,
              action: closing === "complete" ? "order.complete" : "order.cancel",
              entityType: "order",
              entityId: String(id),
              before: { status: "placed" },
              after: toOrder(r.order),
            });
          return r;
        })
      : await run(queryRows);
    onQueued(result.queued);
    return toOrder(result.order);
  }

  /** One page of people's search within `owner` (see OrderSearch). */
  async function search(owner: OrderOwner, query: OrderSearch): Promise<OrderSearchPage> {
    const where = searchConditions(query, owner);
    const skip = (query.page - 1) * query.pageSize;
    const past = skip + query.pageSize > COUNT_CAP;
    const [counted, rows] = await Promise.all([
      prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::float8 AS n FROM (SELECT 1 FROM "Order" o WHERE ${where}
        ${past ? Prisma.empty : Prisma.sql`LIMIT ${COUNT_CAP + 1}`}) AS m`,
      prisma.$queryRaw<(OrderRow & Omit<OrderView, keyof Order | "accountId" | "apiKeyId">)[]>`
        SELECT ${orderColumns("o")}, a."name" AS "accountName", k."prefix" AS "keyPrefix", k."name" AS "keyName",
               p."name" AS "petName"
        FROM (SELECT o."id" FROM "Order" o WHERE ${where} ORDER BY o."id" DESC OFFSET ${skip} LIMIT ${query.pageSize}) AS page
        JOIN "Order" o ON o."id" = page."id"
        JOIN "ApiKey" k ON k."id" = o."apiKeyId"
        LEFT JOIN "Account" a ON a."id" = o."accountId"
        LEFT JOIN "Pet" p ON p."id" = o."petId"
        ORDER BY o."id" DESC`,
    ]);
    const n = counted[0]?.n ?? 0;
    return {
      rows: rows.map((r) => ({
        ...toOrder(r),
        accountId: r.accountId,
        accountName: r.accountName,
        apiKeyId: r.apiKeyId,
        keyPrefix: r.keyPrefix,
        keyName: r.keyName,
        petName: r.petName,
      })),
      total: past ? n : Math.min(n, COUNT_CAP),
      totalExact: past || n <= COUNT_CAP,
    };
  }

  /** Order `id` as people see it, within `owner`. @throws not_found. */
  async function view(owner: OrderOwner, id: number): Promise<OrderView> {
    const { rows } = await search(owner, { id, page: 1, pageSize: 1 });
    const [row] = rows;
    if (!row) throw notFound(id);
    return row;
  }

  /** The service over `owner`'s orders only (see the module comment). */
  function of(owner: Owner) {
    return {
      /** createOrder: see `create` above. */
      create: (input: OrderCreate, placedBy: { apiKeyId: string }, tx?: Tx) =>
        create(owner, input, placedBy, tx),

      /**
       * listOrders: up to `limit` orders, newest first, after the cursor's position, filtered by status and animal.
       * @throws validation_failed (path cursor) for a cursor of another list or filter.
       */
      async list(query: {
        limit: number;
        status?: OrderStatus | undefined;
        petId?: bigint | undefined;
        cursor?: string | undefined;
      }): Promise<OrderPage> {
        const filter = `${query.status ?? ""}:${query.petId ?? ""}`;
        const before = query.cursor ? cursors.decode(query.cursor, filter) : undefined;
        const parts = [ownedBy("o", owner)];
        if (query.status) parts.push(Prisma.sql`o."status" = ${query.status}::"OrderStatus"`);
        if (query.petId !== undefined) parts.push(Prisma.sql`o."petId" = ${query.petId}`);
        if (before !== undefined) parts.push(Prisma.sql`o."id" < ${before}`);
        const rows = await queryRows<OrderRow>(Prisma.sql`
          SELECT ${orderColumns("o")} FROM "Order" o WHERE ${Prisma.join(parts, " AND ")}
          ORDER BY o."id" DESC LIMIT ${query.limit + 1}`);
        const page = rows.slice(0, query.limit);
        const last = page.at(-1);
        return {
          items: page.map(toOrder),
          ...(rows.length > query.limit && last
            ? { nextCursor: cursors.encode({ afterId: last.id, status: filter }) }
            : {}),
        };
      },

      /** getOrder. @throws not_found (also for another owner's order). */
      async get(id: bigint | number): Promise<Order> {
        const row = await select(queryRows, BigInt(id), owner);
        if (!row) throw notFound(id);
        return toOrder(row);
      },

      /** People's page of the owner's orders (the portal). */
      search: (query: Omit<OrderSearch, "accountId">) => search(owner, query),

      /** One order as people see it. @throws not_found. */
      view: (id: number) => view(owner, id),

      /**
       * completeOrder: the order `completed`, its animal `sold`; `actor` (a person, the CLI) is audited.
       * @throws not_found, conflict (no longer placed; a lapsed hold counts as expired).
       */
      complete: (id: bigint | number, actor?: Actor) => close(owner, BigInt(id), "complete", actor),

      /** cancelOrder: the order `cancelled`, its animal `available`. @throws not_found, conflict. */
      cancel: (id: bigint | number, actor?: Actor) => close(owner, BigInt(id), "cancel", actor),
    };
  }

  return {
    of,

    /** Every order, newest first, filtered (the dashboard's Orders page, an animal's orders). */
    search: (query: OrderSearch) => search("store", query),

    /** One order as the store sees it. @throws not_found. */
    get: (id: number) => view("store", id),

    /** Completes any placed order (the dashboard, the CLI), audited as `order.complete`. @throws not_found, conflict. */
    complete: (id: number, actor: Actor) => close("store", BigInt(id), "complete", actor),

    /** Cancels any placed order, audited as `order.cancel`. @throws not_found, conflict. */
    cancel: (id: number, actor: Actor) => close("store", BigInt(id), "cancel", actor),

    /** The overview's figures: open holds (placed orders) and orders placed today (UTC). */
    async counts(): Promise<{ placed: number; today: number }> {
      const now = clock();
      const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
      const [row] = await prisma.$queryRaw<{ placed: number; today: number }[]>`
        SELECT (SELECT count(*) FROM "Order" WHERE "status" = 'placed')::int AS "placed",
               (SELECT count(*) FROM "Order" WHERE "createdAt" >= ${midnight.toISOString()}::timestamptz)::int AS "today"`;
      return row ?? { placed: 0, today: 0 };
    },

    /**
     * Expires up to `limit` lapsed holds in one statement, skipping what other transactions hold locked.
     * @returns how many it expired.
     */
    async sweep(limit: number): Promise<number> {
      const { orders, queued } = await expireHolds(queryRows, { due: limit }, clock());
      onQueued(queued);
      return orders.length;
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
export type OwnerOrders = ReturnType<OrdersService["of"]>;
