/**
 * Pet (animal) domain service, shared by the REST API and the dashboard's tRPC procedures.
 * Inputs are already-parsed contract types; rule violations raise `AppError`.
 *
 * Edits and deletions lock the animals' rows first (`SELECT ... FOR UPDATE`) and read them after the lock, so
 * an animal deleted by a concurrent call is answered 404 `not_found`, never a database error
 * (docs/contract.md section 4, "Invariants under concurrency").
 */
import { type Animal, AppError, type NewPet, type PetStatus, type PetUpdate } from "@petstore/contracts";
import type { Prisma } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { petUpdatedData, type QueuedListener, recordEvents } from "../webhooks/outbox.ts";
import { createPetInserter, insertPet } from "./batched-insert.ts";
import { createPageLoader, createPetLoader } from "./batched-reads.ts";
import { createCursorCodec } from "./cursor.ts";
import { isForeignKeyViolation } from "./database-errors.ts";
import { toAnimal } from "./mapping.ts";
import { createPetSearch } from "./search.ts";

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
  for (const pet of pets) {
    await writeAudit(tx, {
      actor,
      action: "pet.setStatus",
      entityType: "pet",
      entityId: String(pet.id),
      before: { status: pet.status },
      after: { status: statusOf(pet) },
    });
  }
  const events = pets.flatMap((pet) => {
    const data = petUpdatedData(toAnimal({ ...pet, status: statusOf(pet) }), toAnimal(pet));
    return data ? [{ type: "pet.updated" as const, data }] : [];
  });
  return recordEvents(tx, events);
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
  { prisma, queryRows }: PrismaLike,
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

    /** Edits name, category and/or status. @throws AppError not_found, validation_failed. */
    async update(input: PetUpdate, actor: Actor): Promise<Animal> {
      try {
        const updated = await prisma.$transaction(async (tx) => {
          const [before] = await lockPets(tx, [BigInt(input.id)]);
          if (!before) throw new AppError("not_found", `No animal with id ${input.id}.`);
          const pet = await tx.pet.update({
            where: { id: before.id },
            data: {
              ...(input.name !== undefined ? { name: input.name } : {}),
              ...(input.categoryId !== undefined ? { categoryId: BigInt(input.categoryId) } : {}),
              ...(input.status !== undefined ? { status: input.status } : {}),
            },
          });
          await writeAudit(tx, {
            actor,
            action: "pet.update",
            entityType: "pet",
            entityId: String(pet.id),
            before,
            after: pet,
          });
          const data = petUpdatedData(toAnimal(pet), toAnimal(before));
          const queued = data ? await recordEvents(tx, [{ type: "pet.updated", data }]) : 0;
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

    /** Deletes one animal. @throws AppError not_found. */
    async remove(id: number, actor: Actor): Promise<void> {
      const queued = await prisma.$transaction(async (tx) => {
        const [before] = await lockPets(tx, [BigInt(id)]);
        if (!before) throw new AppError("not_found", `No animal with id ${id}.`);
        await tx.pet.delete({ where: { id: before.id } });
        await writeAudit(tx, {
          actor,
          action: "pet.delete",
          entityType: "pet",
          entityId: String(id),
          before,
        });
        return recordEvents(tx, [{ type: "pet.deleted", data: toAnimal(before) }]);
      });
      onQueued(queued);
    },

    /**
     * Sets the status (null clears it) of the animals `ids` that exist, audited per animal, one `pet.updated`
     * event per animal whose status changed.
     * @returns how many animals it set, and each one's status before (what `restoreStatus` puts back).
     */
    async setStatus(
      ids: number[],
      status: PetStatus | null,
      actor: Actor,
    ): Promise<{ count: number; previous: StatusChange[] }> {
      const { previous, queued } = await prisma.$transaction(async (tx) => {
        const before = await lockPets(tx, [...new Set(ids)].map(BigInt));
        const queued = await applyStatuses(tx, before, () => status, actor);
        return { previous: before.map((pet) => ({ id: Number(pet.id), status: pet.status })), queued };
      });
      onQueued(queued);
      return { count: previous.length, previous };
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
        const unchanged = (await lockPets(tx, [...wanted.keys()])).filter((pet) => pet.status === from);
        const queued = await applyStatuses(tx, unchanged, (pet) => wanted.get(pet.id) ?? null, actor);
        return { restored: unchanged.length, queued };
      });
      onQueued(queued);
      return { restored, skipped: wanted.size - restored };
    },
  };
}

export type PetService = ReturnType<typeof createPetService>;
