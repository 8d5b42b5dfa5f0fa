/**
 * Pet (animal) domain service, shared by the REST API and the dashboard's tRPC procedures.
 * Inputs are already-parsed contract types; rule violations raise `AppError`.
 *
 * Edits and deletions lock the animals' rows first (`SELECT ... FOR UPDATE`) and read them after the lock, so
 * an animal deleted by a concurrent call is answered 404 `not_found`, never a database error
 * (docs/contract.md section 4, "Invariants under concurrency"). Before the animals they lock the placed orders
 * that hold them (orders/statements.ts: orders first, then animals, everywhere): a held animal's status does not
 * change and it is not deleted (409 `conflict`), and a hold that lapsed is expired first (docs/contract.md
 * section 1, "The store section").
 */
import {
  type Animal,
  AppError,
  MAX_ANIMALS_CSV,
  MAX_BULK_STATUS,
  type NewPet,
  type PetExportQuery,
  type PetFilter,
  type PetStatus,
  type PetUpdate,
} from "@petstore/contracts";
import type { Prisma } from "@petstore/db";
import { writeAudit, writeAudits } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { animalTag } from "../entity-tag.ts";
import { expireHolds, lockHolds, placedHolds } from "../orders/statements.ts";
import { petUpdatedData, type QueuedListener, recordEvents } from "../webhooks/outbox.ts";
import { createPetInserter, insertPet } from "./batched-insert.ts";
import { createPageLoader, createPetLoader } from "./batched-reads.ts";
import { createCursorCodec } from "./cursor.ts";
import { isForeignKeyViolation } from "./database-errors.ts";
import { readInventory } from "./inventory.ts";
import { toAnimal } from "./mapping.ts";
import { countMatching, createPetSearch, matchingIds, petBatches } from "./search.ts";

export type { PetRow } from "./search.ts";

export interface PetPage {
  items: Animal[];
  /** Cursor of the next page; absent on the last page. */
  nextCursor?: string;
}

type PrismaLike = Pick<CoreDeps, "prisma" | "queryRows">;

/**
 * Locks the rows of the animals `ids` that exist (in id order, so concurrent callers queue rather than
 * deadlock) and returns them as they are once locked: a row deleted meanwhile is simply absent.
 */
async function lockPets(tx: Prisma.TransactionClient, ids: bigint[]) {
  if (ids.length === 0) return [];
  await tx.$queryRaw`SELECT "id" FROM "Pet" WHERE "id" = ANY(${ids}::bigint[]) ORDER BY "id" FOR UPDATE`;
  return tx.pet.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
}

/**
 * Locks the placed orders of the animals `ids`, then the animals, expires the holds that lapsed by `now` (their
 * events queued in `tx`), and returns the animals as they are then, with the orders that still hold them.
 * `inspect` sees the animals as stored, before any expiry.
 */
async function lockWithHolds(
  tx: Prisma.TransactionClient,
  ids: bigint[],
  now: Date,
  inspect: (stored: LockedPet[]) => void = () => {},
) {
  const holds = await lockHolds(tx, ids);
  let pets = await lockPets(tx, ids);
  inspect(pets);
  // An order placed after the orders were locked and before the animals were holds its animal all the same.
  if (pets.some((pet) => pet.status === "pending" && !holds.has(pet.id)))
    for (const [petId, hold] of await placedHolds(tx, ids)) if (!holds.has(petId)) holds.set(petId, hold);
  let queued = 0;
  const lapsed = [...holds].filter(([, hold]) => hold.holdUntil <= now).map(([petId]) => petId);
  if (lapsed.length) {
    queued = (await expireHolds((query) => tx.$queryRaw(query), { petIds: lapsed }, now)).queued;
    for (const petId of lapsed) holds.delete(petId);
    pets = await tx.pet.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
  }
  return { pets, holds, queued };
}

/** The 409 of a change an order's hold forbids on animal `petId`. */
const heldBy = (petId: bigint, orderId: bigint) =>
  new AppError(
    "conflict",
    `Animal ${petId} is held by order ${orderId}: complete or cancel the order first.`,
  );

/** A change of an animal: createPet's fields, each optional; `status: null` removes the status. */
export interface PetChange {
  id: number | bigint;
  name?: string | undefined;
  categoryId?: number | undefined;
  status?: PetStatus | null | undefined;
}

/** One animal's status at a moment: what a bulk status change returns, and what its undo puts back. */
export interface StatusChange {
  id: number;
  status: PetStatus | null;
}

type LockedPet = Awaited<ReturnType<typeof lockPets>>[number];

/**
 * Sets each locked animal's status to `statusOf(pet)` (one update per distinct status), writes one audit entry per
 * animal and records a `pet.updated` event for each one whose status changed.
 * @returns the events' queue listener argument (`recordEvents`).
 */
async function applyStatuses(
  tx: Prisma.TransactionClient,
  pets: LockedPet[],
  statusOf: (pet: LockedPet) => PetStatus | null,
  actor: Actor,
) {
  const groups = new Map<PetStatus | null, bigint[]>();
  for (const pet of pets) groups.set(statusOf(pet), [...(groups.get(statusOf(pet)) ?? []), pet.id]);
  for (const [status, ids] of groups)
    await tx.pet.updateMany({ where: { id: { in: ids } }, data: { status } });
  await writeAudits(
    tx,
    pets.map((pet) => ({
      actor,
      action: "pet.setStatus",
      entityType: "pet",
      entityId: String(pet.id),
      before: { status: pet.status },
      after: { status: statusOf(pet) },
    })),
  );
  const events = pets.flatMap((pet) => {
    const data = petUpdatedData(toAnimal({ ...pet, status: statusOf(pet) }), toAnimal(pet));
    return data ? [{ type: "pet.updated" as const, data }] : [];
  });
  return recordEvents(tx, events);
}

/** The refusal of a change or download of more animals than `max`. */
const tooManyMatches = (max: number, what: string) =>
  new AppError(
    "validation_failed",
    `More than ${max.toLocaleString("en-US")} animals match: narrow the filters (at most ${max.toLocaleString("en-US")} ${what}).`,
  );

/**
 * Sets the status of the animals `ids` that exist, in `tx` (see `setStatus`).
 * @throws AppError conflict when it would change the status of an animal a placed order holds.
 */
async function setStatusOf(
  tx: Prisma.TransactionClient,
  ids: bigint[],
  status: PetStatus | null,
  actor: Actor,
  now: Date,
) {
  const locked = await lockWithHolds(tx, ids, now);
  const before = locked.pets;
  const held = before.flatMap((pet) => {
    const hold = locked.holds.get(pet.id);
    return hold && pet.status !== status ? [{ petId: pet.id, orderId: hold.id }] : [];
  });
  if (held.length === 1 && held[0]) throw heldBy(held[0].petId, held[0].orderId);
  if (held.length > 1)
    throw new AppError(
      "conflict",
      `${held.length} of these animals are held by placed orders (${held
        .slice(0, 5)
        .map((h) => h.petId)
        .join(", ")}${held.length > 5 ? ", …" : ""}): complete or cancel their orders first.`,
    );
  const queued = locked.queued + (await applyStatuses(tx, before, () => status, actor));
  return { previous: before.map((pet) => ({ id: Number(pet.id), status: pet.status })), queued };
}

const unknownCategory = (categoryId: number) =>
  new AppError("validation_failed", `Invalid categoryId: no category with id ${categoryId}.`, [
    { path: "categoryId", message: `no category with id ${categoryId}` },
  ]);

/**
 * The pet service; `cursorSecret` signs listPets cursors (cursor.ts). Every change writes its webhook events in
 * its own transaction (webhooks/outbox.ts) and tells `onQueued` how many deliveries it queued.
 */
export function createPetService(
  { prisma, queryRows, clock }: PrismaLike & Pick<CoreDeps, "clock">,
  cursorSecret: string,
  onQueued: QueuedListener = () => {},
) {
  const cursors = createCursorCodec(cursorSecret);
  const loadPage = createPageLoader(queryRows);
  const loadPet = createPetLoader(queryRows);
  const insertBatched = createPetInserter(queryRows, onQueued);
  return {
    /**
     * listPets: up to `limit` animals with id above the cursor position, ascending by id (keyset paging);
     * identical pages asked for in one event-loop turn share a statement (batched-reads.ts).
     * @throws AppError validation_failed for a bad cursor.
     */
    async list(query: { limit: number; status?: PetStatus; cursor?: string }): Promise<PetPage> {
      const afterId = query.cursor ? cursors.decode(query.cursor, query.status) : 0n;
      // One more row than asked, to learn whether a next page exists.
      const rows = await loadPage({ afterId, status: query.status, take: query.limit + 1 });
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        items: page.map(toAnimal),
        nextCursor:
          rows.length > query.limit && last
            ? cursors.encode({ afterId: last.id, status: query.status })
            : undefined,
      };
    },

    /**
     * createPet: inserts the animal; ids come from the database sequence. Without `actor` and `tx`, animals
     * created in the same event-loop turn are inserted by one statement (batched-insert.ts).
     * @throws AppError validation_failed (path categoryId) when the category does not exist.
     */
    async create(input: NewPet, actor?: Actor, tx?: Prisma.TransactionClient): Promise<Animal> {
      const run = async (db: Prisma.TransactionClient) => {
        const inserted = await insertPet((query) => db.$queryRaw(query), input);
        if (actor)
          await writeAudit(db, {
            actor,
            action: "pet.create",
            entityType: "pet",
            entityId: String(inserted.pet.id),
            after: inserted.pet,
          });
        return inserted;
      };
      try {
        // Without an audit entry or a caller's transaction, the insert joins the turn's batch (batched-insert.ts):
        // no interactive transaction (BEGIN/COMMIT are two more round trips on the REST createPet path).
        if (!tx && !actor) return toAnimal(await insertBatched(input));
        const { pet, queued } = tx ? await run(tx) : await prisma.$transaction(run);
        onQueued(queued);
        return toAnimal(pet);
      } catch (error) {
        if (isForeignKeyViolation(error)) throw unknownCategory(input.categoryId);
        throw error;
      }
    },

    /** getPet; ids asked for in one event-loop turn are read together (batched-reads.ts). @throws AppError not_found. */
    async get(id: bigint): Promise<Animal> {
      const pet = await loadPet(id);
      if (!pet) throw new AppError("not_found", `No animal with id ${id}.`);
      return toAnimal(pet);
    },

    /** Dashboard table: one page with sort, filters, a case-insensitive name search and a capped count (search.ts). */
    search: createPetSearch(prisma),

    /** The number of animals in each state, exact (getInventory; inventory.ts). */
    inventory: () => readInventory(queryRows),

    /**
     * Edits name, category and/or status (the dashboard's edit, REST updatePet's merge patch); a change that
     * changes nothing writes nothing. `actor` (a person) is audited. `ifMatch`, when given, is asked whether the
     * animal's entity tag as stored (before a lapsed hold is expired) is one the client named.
     * @throws AppError not_found, validation_failed (path categoryId), precondition_failed (ifMatch said no),
     *   conflict (a status change of an animal a placed order holds).
     */
    async update(
      input: PetUpdate | PetChange,
      actor?: Actor,
      options: { ifMatch?: (etag: string) => boolean } = {},
    ): Promise<Animal> {
      const id = BigInt(input.id);
      try {
        const updated = await prisma.$transaction(async (tx) => {
          const locked = await lockWithHolds(tx, [id], clock(), ([stored]) => {
            if (stored && options.ifMatch && !options.ifMatch(animalTag(toAnimal(stored))))
              throw new AppError(
                "precondition_failed",
                `Animal ${id} has changed since the version If-Match names; read it again and repeat the change.`,
              );
          });
          const [before] = locked.pets;
          if (!before) throw new AppError("not_found", `No animal with id ${id}.`);
          let queued = locked.queued;
          const hold = locked.holds.get(id);
          if (hold && input.status !== undefined && input.status !== before.status) throw heldBy(id, hold.id);
          const data = {
            ...(input.name !== undefined && input.name !== before.name ? { name: input.name } : {}),
            ...(input.categoryId !== undefined && BigInt(input.categoryId) !== before.categoryId
              ? { categoryId: BigInt(input.categoryId) }
              : {}),
            ...(input.status !== undefined && input.status !== before.status ? { status: input.status } : {}),
          };
          if (Object.keys(data).length === 0) return { animal: toAnimal(before), queued };
          const pet = await tx.pet.update({ where: { id }, data });
          if (actor)
            await writeAudit(tx, {
              actor,
              action: "pet.update",
              entityType: "pet",
              entityId: String(pet.id),
              before,
              after: pet,
            });
          const changed = petUpdatedData(toAnimal(pet), toAnimal(before));
          if (changed) queued += await recordEvents(tx, [{ type: "pet.updated", data: changed }]);
          return { animal: toAnimal(pet), queued };
        });
        onQueued(updated.queued);
        return updated.animal;
      } catch (error) {
        if (isForeignKeyViolation(error) && input.categoryId !== undefined)
          throw unknownCategory(input.categoryId);
        throw error;
      }
    },

    /** Deletes one animal. @throws AppError not_found, conflict (a placed order holds it). */
    async remove(id: number, actor: Actor): Promise<void> {
      const queued = await prisma.$transaction(async (tx) => {
        const locked = await lockWithHolds(tx, [BigInt(id)], clock());
        const [before] = locked.pets;
        if (!before) throw new AppError("not_found", `No animal with id ${id}.`);
        const hold = locked.holds.get(before.id);
        if (hold) throw heldBy(before.id, hold.id);
        await tx.pet.delete({ where: { id: before.id } });
        await writeAudit(tx, {
          actor,
          action: "pet.delete",
          entityType: "pet",
          entityId: String(id),
          before,
        });
        return locked.queued + (await recordEvents(tx, [{ type: "pet.deleted", data: toAnimal(before) }]));
      });
      onQueued(queued);
    },

    /**
     * Sets the status (null clears it) of the animals `ids` that exist, audited per animal, one `pet.updated`
     * event per animal whose status changed.
     * @returns how many animals it set, and each one's status before (what `restoreStatus` puts back).
     * @throws AppError conflict when it would change the status of an animal a placed order holds (nothing is set).
     */
    async setStatus(
      ids: number[],
      status: PetStatus | null,
      actor: Actor,
    ): Promise<{ count: number; previous: StatusChange[] }> {
      const { previous, queued } = await prisma.$transaction((tx) =>
        setStatusOf(tx, [...new Set(ids)].map(BigInt), status, actor, clock()),
      );
      onQueued(queued);
      return { count: previous.length, previous };
    },

    /**
     * `setStatus` of every animal `filter` matches (the dashboard's "select all matching"), read and changed in one
     * transaction; each animal is audited as `setStatus` audits it.
     * @returns as `setStatus`.
     * @throws AppError validation_failed when more than MAX_BULK_STATUS match (nothing is set);
     *   conflict as `setStatus`.
     */
    async setStatusMatching(
      filter: PetFilter,
      status: PetStatus | null,
      actor: Actor,
    ): Promise<{ count: number; previous: StatusChange[] }> {
      const { previous, queued } = await prisma.$transaction(async (tx) => {
        const ids = await matchingIds(tx, filter, MAX_BULK_STATUS);
        if (ids.length > MAX_BULK_STATUS) throw tooManyMatches(MAX_BULK_STATUS, "change at once");
        return setStatusOf(tx, ids, status, actor, clock());
      });
      onQueued(queued);
      return { count: previous.length, previous };
    },

    /**
     * The animals `query` matches in its order, `batchSize` at a time (the animals CSV).
     * @throws AppError validation_failed, before any batch, when more than MAX_ANIMALS_CSV match.
     */
    async *exportBatches(query: PetExportQuery, batchSize = 1_000) {
      if ((await countMatching(prisma, query, MAX_ANIMALS_CSV)) > MAX_ANIMALS_CSV)
        throw tooManyMatches(MAX_ANIMALS_CSV, "download at once");
      yield* petBatches(prisma, query, batchSize);
    },

    /**
     * Undoes a `setStatus` that set `from`: every animal of `previous` whose status is still `from` gets its status
     * from `previous` back; an animal changed since, or deleted, is left as it is.
     * @returns how many animals it restored and how many it left.
     */
    async restoreStatus(
      previous: StatusChange[],
      from: PetStatus | null,
      actor: Actor,
    ): Promise<{ restored: number; skipped: number }> {
      const wanted = new Map(previous.map((change) => [BigInt(change.id), change.status]));
      const { restored, queued } = await prisma.$transaction(async (tx) => {
        const locked = await lockWithHolds(tx, [...wanted.keys()], clock());
        // An animal an order holds now is left as it is, like one changed since.
        const unchanged = locked.pets.filter(
          (pet) =>
            pet.status === from && (!locked.holds.has(pet.id) || (wanted.get(pet.id) ?? null) === pet.status),
        );
        const queued =
          locked.queued + (await applyStatuses(tx, unchanged, (pet) => wanted.get(pet.id) ?? null, actor));
        return { restored: unchanged.length, queued };
      });
      onQueued(queued);
      return { restored, skipped: wanted.size - restored };
    },
  };
}

export type PetService = ReturnType<typeof createPetService>;
