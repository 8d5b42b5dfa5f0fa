/**
 * Pet (animal) domain service, shared by the REST API and the dashboard's tRPC procedures.
 * Inputs are already-parsed contract types; rule violations raise `AppError`.
 */
import {
  type Animal,
  AppError,
  type NewPet,
  type PetSearch,
  type PetStatus,
  type PetUpdate,
} from "@petstore/contracts";
import type { Prisma } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { likeLiteral } from "../like.ts";
import { createPetInserter, insertPet } from "./batched-insert.ts";
import { createPageLoader, createPetLoader } from "./batched-reads.ts";
import { createCursorCodec } from "./cursor.ts";
import { isForeignKeyViolation } from "./database-errors.ts";
import { toAnimal } from "./mapping.ts";

export interface PetPage {
  items: Animal[];
  /** Cursor of the next page; absent on the last page. */
  nextCursor?: string;
}

export interface PetRow extends Animal {
  categoryName: string;
  createdAt: string;
  updatedAt: string;
}

type PrismaLike = Pick<CoreDeps, "prisma">;

const unknownCategory = (categoryId: number) =>
  new AppError("validation_failed", `Invalid categoryId: no category with id ${categoryId}.`, [
    { path: "categoryId", message: `no category with id ${categoryId}` },
  ]);

/** The pet service; `cursorSecret` signs listPets cursors (cursor.ts). */
export function createPetService({ prisma }: PrismaLike, cursorSecret: string) {
  const cursors = createCursorCodec(cursorSecret);
  const loadPage = createPageLoader(prisma);
  const loadPet = createPetLoader(prisma);
  const insertBatched = createPetInserter(prisma);
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
        const pet = await insertPet(db, input);
        if (actor)
          await writeAudit(db, {
            actor,
            action: "pet.create",
            entityType: "pet",
            entityId: String(pet.id),
            after: pet,
          });
        return pet;
      };
      try {
        // Without an audit entry or a caller's transaction, the insert joins the turn's batch (batched-insert.ts):
        // no interactive transaction (BEGIN/COMMIT are two more round trips on the REST createPet path, issue 7).
        if (!tx && !actor) return toAnimal(await insertBatched(input));
        return toAnimal(tx ? await run(tx) : await prisma.$transaction(run));
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

    /** Dashboard table: offset paging with sort, filters and a case-insensitive name search. */
    async search(input: PetSearch): Promise<{ rows: PetRow[]; total: number }> {
      const where: Prisma.PetWhereInput = {
        ...(input.status === "none" ? { status: null } : input.status ? { status: input.status } : {}),
        ...(input.categoryId ? { categoryId: BigInt(input.categoryId) } : {}),
        ...(input.query
          ? { name: { contains: likeLiteral(input.query), mode: "insensitive" as const } }
          : {}),
      };
      const [total, rows] = await prisma.$transaction([
        prisma.pet.count({ where }),
        prisma.pet.findMany({
          where,
          orderBy: [{ [input.sortBy]: input.sortDirection }, { id: input.sortDirection }],
          skip: (input.page - 1) * input.pageSize,
          take: input.pageSize,
          include: { category: { select: { name: true } } },
        }),
      ]);
      return {
        total,
        rows: rows.map((p) => ({
          ...toAnimal(p),
          categoryName: p.category.name,
          createdAt: p.createdAt.toISOString(),
          updatedAt: p.updatedAt.toISOString(),
        })),
      };
    },

    /** Edits name, category and/or status. @throws AppError not_found, validation_failed. */
    async update(input: PetUpdate, actor: Actor): Promise<Animal> {
      try {
        return await prisma.$transaction(async (tx) => {
          const before = await tx.pet.findUnique({ where: { id: BigInt(input.id) } });
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
          return toAnimal(pet);
        });
      } catch (error) {
        if (isForeignKeyViolation(error) && input.categoryId !== undefined)
          throw unknownCategory(input.categoryId);
        throw error;
      }
    },

    /** Deletes one animal. @throws AppError not_found. */
    async remove(id: number, actor: Actor): Promise<void> {
      await prisma.$transaction(async (tx) => {
        const before = await tx.pet.findUnique({ where: { id: BigInt(id) } });
        if (!before) throw new AppError("not_found", `No animal with id ${id}.`);
        await tx.pet.delete({ where: { id: before.id } });
        await writeAudit(tx, {
          actor,
          action: "pet.delete",
          entityType: "pet",
          entityId: String(id),
          before,
        });
      });
    },

    /** Sets the status of several animals at once; returns how many changed. */
    async setStatus(ids: number[], status: PetStatus | null, actor: Actor): Promise<number> {
      return prisma.$transaction(async (tx) => {
        const before = await tx.pet.findMany({ where: { id: { in: ids.map(BigInt) } } });
        const { count } = await tx.pet.updateMany({
          where: { id: { in: before.map((p) => p.id) } },
          data: { status },
        });
        for (const pet of before) {
          await writeAudit(tx, {
            actor,
            action: "pet.setStatus",
            entityType: "pet",
            entityId: String(pet.id),
            before: { status: pet.status },
            after: { status },
          });
        }
        return count;
      });
    },
  };
}

export type PetService = ReturnType<typeof createPetService>;
