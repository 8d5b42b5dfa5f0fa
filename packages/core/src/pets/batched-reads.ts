/**
 * The two hot reads of /v1 (listPets pages and getPet), batched per event-loop turn through DataLoader
 * (docs/architecture.md "Batching per event-loop turn"):
 * - identical pages (same position, filter and size) asked for in the same turn share one statement;
 * - animals asked for by id in the same turn are read by one `WHERE id = ANY(…)` statement.
 * Every request served by a statement was made before that statement was sent, so each still sees every write
 * acknowledged before it was made (read-your-writes holds); nothing is cached beyond the one statement.
 * Both are raw statements run by `queryRows` (db's client.ts: node-postgres on PostgreSQL), which skip the query
 * builder's plan interpretation and result mapping on the hot path (docs/performance.md, "Where the time goes").
 */
import type { PetStatus } from "@petstore/contracts";
import { type Pet, Prisma, type QueryRows } from "@petstore/db";
import DataLoader from "dataloader";
import { endOfTurn } from "../end-of-turn.ts";

/** One page request: animals with id above `afterId`, optionally of one `status`, at most `take` of them. */
export interface PageQuery {
  afterId: bigint;
  status?: PetStatus;
  take: number;
}

export type PetRowView = Pick<Pet, "id" | "name" | "categoryId" | "status">;

const pageKey = (q: PageQuery) => `${q.afterId}:${q.status ?? ""}:${q.take}`;

function selectPage(queryRows: QueryRows, q: PageQuery): Promise<PetRowView[]> {
  return queryRows<PetRowView>(Prisma.sql`
    SELECT "id", "name", "categoryId", "status"::text AS "status" FROM "Pet"
    WHERE "id" > ${q.afterId}${q.status ? Prisma.sql` AND "status" = ${q.status}::"PetStatus"` : Prisma.empty}
    ORDER BY "id" LIMIT ${q.take}`);
}

/**
 * Returns `load(query)`: the rows of that page (ascending id, at most `take`), read by one statement per
 * distinct query among those asked for in the same event-loop turn. The arrays may be shared between callers:
 * treat them as read-only. Rejects with the statement's error (the driver's) for every caller sharing it, and only
 * for those.
 */
export function createPageLoader(queryRows: QueryRows): (query: PageQuery) => Promise<readonly PetRowView[]> {
  // With cache: false the batch lists a key once per caller (DataLoader docs): one statement per distinct key.
  const loader = new DataLoader<PageQuery, PetRowView[], string>(async (queries) => {
    const statements = new Map<string, Promise<PetRowView[]>>();
    for (const q of queries) {
      const key = pageKey(q);
      if (!statements.has(key)) statements.set(key, selectPage(queryRows, q));
    }
    return Promise.all(
      queries.map((q) => (statements.get(pageKey(q)) as Promise<PetRowView[]>).catch((e: Error) => e)),
    );
  }, endOfTurn);
  return (query) => loader.load(query);
}

/**
 * Returns `load(id)`: the animal with that id, or null, read by one statement for all ids asked for in the
 * same event-loop turn. Rejects with the statement's error (the driver's) for every caller of that turn.
 */
export function createPetLoader(queryRows: QueryRows): (id: bigint) => Promise<PetRowView | null> {
  const loader = new DataLoader<bigint, PetRowView | null, bigint>(async (ids) => {
    const distinct = [...new Set(ids)];
    const rows = await queryRows<PetRowView>(Prisma.sql`
      SELECT "id", "name", "categoryId", "status"::text AS "status" FROM "Pet"
      WHERE "id" = ANY(${distinct}::bigint[])`);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  }, endOfTurn);
  return (id) => loader.load(id);
}
