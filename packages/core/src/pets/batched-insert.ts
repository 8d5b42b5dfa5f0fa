/**
 * createPet's INSERT, batched per event-loop turn (docs/architecture.md "Batching per event-loop turn"): one
 * multi-row statement, and so one commit, per turn; each caller is answered after it commits, with its own row.
 * A row the database refuses fails alone (the others are then inserted one by one); any other failure fails the
 * whole batch unretried, since the statement may have committed. The statement also writes each animal's
 * `pet.created` webhook event (webhooks/outbox.ts), committed with the rows or not at all.
 */
import type { NewPet } from "@petstore/contracts";
import { type Pet, Prisma, type QueryRows } from "@petstore/db";
import DataLoader from "dataloader";
import { endOfTurn } from "../end-of-turn.ts";
import { animalJsonSql, outboxCtes, type QueuedListener } from "../webhooks/outbox.ts";
import { isRefusedForData } from "./database-errors.ts";

export type InsertedPet = Pick<Pet, "id" | "name" | "categoryId" | "status" | "createdAt" | "updatedAt">;

/** The `pet.created` events of the rows of the CTE `inserted`, and their deliveries (webhooks/outbox.ts). */
const createdEvents = outboxCtes(
  Prisma.sql`SELECT 'pet.created' AS "type", ${animalJsonSql("inserted")} AS "data", NULL::uuid AS "accountId" FROM inserted`,
  "pet.created",
);

/**
 * Inserts one animal, and its `pet.created` event, with one raw statement run by `queryRows` (the database's
 * direct path, or a transaction's `$queryRaw`): `pet.create` adds CPU per insert for its query plan and result
 * mapping on the hot path. `updatedAt` is set here because @updatedAt is filled in by Prisma's client, not by
 * the database. `queued`: webhook deliveries queued.
 * Throws the driver's error (database-errors.ts reads node-postgres' and Prisma's).
 */
export async function insertPet(
  queryRows: QueryRows,
  input: NewPet,
): Promise<{ pet: InsertedPet; queued: number }> {
  const [row] = await queryRows<InsertedPet & { queued: number }>(Prisma.sql`
    WITH inserted AS (
      INSERT INTO "Pet" ("name", "categoryId", "status", "updatedAt")
      VALUES (${input.name}, ${BigInt(input.categoryId)}, ${input.status ?? null}::"PetStatus", now())
      RETURNING "id", "name", "categoryId", "status"::text AS "status", "createdAt", "updatedAt"
    ), ${createdEvents}
    SELECT inserted.*, (SELECT count(*) FROM webhook_queued)::int AS "queued" FROM inserted`);
  if (!row) throw new Error("INSERT … RETURNING returned no row");
  const { queued, ...pet } = row;
  return { pet, queued };
}

/** One statement for all `inputs`; the rows come back in the order of `inputs` (matched by ordinality). */
async function insertPets(
  queryRows: QueryRows,
  inputs: readonly NewPet[],
): Promise<{ pets: InsertedPet[]; queued: number }> {
  const rows = await queryRows<InsertedPet & { ord: bigint; queued: number }>(Prisma.sql`
    WITH input AS (
      SELECT nextval(pg_get_serial_sequence('"Pet"', 'id')) AS "id", t.*
      FROM unnest(${inputs.map((i) => i.name)}::text[], ${inputs.map((i) => BigInt(i.categoryId))}::bigint[],
                  ${inputs.map((i) => i.status ?? null)}::text[]) WITH ORDINALITY AS t("name", "categoryId", "status", "ord")
    ), inserted AS (
      INSERT INTO "Pet" ("id", "name", "categoryId", "status", "updatedAt")
      SELECT "id", "name", "categoryId", "status"::"PetStatus", now() FROM input
      RETURNING "id", "name", "categoryId", "status"::text AS "status", "createdAt", "updatedAt"
    ), ${createdEvents}
    SELECT inserted.*, input."ord", (SELECT count(*) FROM webhook_queued)::int AS "queued"
    FROM inserted JOIN input USING ("id") ORDER BY input."ord"`);
  if (rows.length !== inputs.length)
    throw new Error(`INSERT of ${inputs.length} returned ${rows.length} rows`);
  return { pets: rows.map(({ ord: _ord, queued: _queued, ...pet }) => pet), queued: rows[0]?.queued ?? 0 };
}

/**
 * Returns `insert(input)`: the inserted row, once the statement that carried it has committed. Rejects with
 * the driver's error of that animal's own statement (e.g. a foreign key violation), or, when the
 * batch's statement failed for another reason, with that error. `onQueued` hears of the webhook deliveries
 * each committed statement queued.
 */
export function createPetInserter(
  queryRows: QueryRows,
  onQueued: QueuedListener = () => {},
): (input: NewPet) => Promise<InsertedPet> {
  const one = async (input: NewPet) => {
    const { pet, queued } = await insertPet(queryRows, input);
    onQueued(queued);
    return pet;
  };
  const loader = new DataLoader<NewPet, InsertedPet, NewPet>(async (inputs) => {
    if (inputs.length === 1) return [await one(inputs[0] as NewPet)];
    try {
      const { pets, queued } = await insertPets(queryRows, inputs);
      onQueued(queued);
      return pets;
    } catch (error) {
      if (!isRefusedForData(error)) throw error;
      return Promise.all(inputs.map((input) => one(input).catch((e: Error) => e)));
    }
  }, endOfTurn);
  return (input) => loader.load(input);
}
