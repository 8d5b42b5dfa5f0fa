/**
 * Category domain service (dashboard, seed and the public API's listCategories): list with animal counts, a
 * keyset-paged list of `{ id, name }` for the API, create, rename, delete when unused.
 * Names are unique regardless of letter case (docs/contract.md section 4); the database enforces it with a
 * unique index on lower(name), and the service names the existing category in its answer. Every change writes
 * its webhook event (`category.created|updated|deleted`, data `{id, name}`) in its own transaction.
 */
import { AppError, type Category, COUNT_CAP } from "@petstore/contracts";
import { Prisma } from "@petstore/db";
import { writeAudit } from "./audit.ts";
import type { Actor, CoreDeps } from "./deps.ts";
import { likeLiteral } from "./like.ts";
import { createCursorCodec } from "./pets/cursor.ts";
import { type QueuedListener, recordEvents } from "./webhooks/outbox.ts";

export interface CategoryView {
  id: number;
  name: string;
  /** Animals in the category, counted up to COUNT_CAP: exact when `petCountExact`, else COUNT_CAP (more). */
  petCount: number;
  petCountExact: boolean;
}

/**
 * Animals per category, counted up to COUNT_CAP each (docs/contract.md section 4 "Counts at scale"): one walk of
 * at most COUNT_CAP + 1 entries of the `categoryId` index per category, never the whole Pet table.
 */
async function cappedPetCounts(
  db: Pick<Prisma.TransactionClient, "$queryRaw">,
  ids: bigint[],
): Promise<Map<string, { petCount: number; petCountExact: boolean }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.$queryRaw<{ id: bigint; n: number }[]>`
    SELECT c."id", (SELECT count(*) FROM (SELECT 1 FROM "Pet" AS p WHERE p."categoryId" = c."id" LIMIT ${COUNT_CAP + 1}) AS m)::float8 AS n
    FROM "Category" AS c WHERE c."id" IN (${Prisma.join(ids)})`;
  return new Map(
    rows.map((r) => [String(r.id), { petCount: Math.min(r.n, COUNT_CAP), petCountExact: r.n <= COUNT_CAP }]),
  );
}

const NO_ANIMALS = { petCount: 0, petCountExact: true };

const duplicateName = (name: string, existing: string | undefined) =>
  new AppError(
    "validation_failed",
    existing && existing !== name
      ? `A category named "${existing}" already exists; names are the same regardless of letter case.`
      : `A category named "${name}" already exists.`,
    [
      {
        path: "name",
        message:
          existing && existing !== name
            ? `is already taken by "${existing}" (case does not matter)`
            : "is already taken",
      },
    ],
  );

function isUniqueViolation(error: unknown) {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

/** One page of the public API's categories; `nextCursor` is absent on the last page. */
export interface CategoryPage {
  items: Category[];
  nextCursor?: string;
}

/**
 * `onQueued` hears how many webhook deliveries each committed change queued; `cursorSecret` signs the cursors of
 * `page` (the deployment's cursor secret, as listPets'; pets/cursor.ts keeps the two lists' cursors apart).
 */
export function createCategoryService(
  { prisma }: Pick<CoreDeps, "prisma">,
  onQueued: QueuedListener,
  cursorSecret: string,
) {
  const cursors = createCursorCodec(cursorSecret, "categories");
  /** The unique-index violation as a validation error naming the category that holds the name. */
  async function clash(name: string, exceptId?: bigint): Promise<AppError> {
    const existing = await prisma.category.findFirst({
      // Prisma turns an insensitive `equals` into ILIKE: the name's % and _ must match only themselves.
      where: {
        name: { equals: likeLiteral(name), mode: "insensitive" },
        ...(exceptId ? { id: { not: exceptId } } : {}),
      },
      select: { name: true },
    });
    return duplicateName(name, existing?.name);
  }

  return {
    /** All categories by name, each with how many animals use it (counted up to COUNT_CAP). */
    async list(): Promise<CategoryView[]> {
      const rows = await prisma.category.findMany({ orderBy: { name: "asc" } });
      const counts = await cappedPetCounts(
        prisma,
        rows.map((c) => c.id),
      );
      return rows.map((c) => ({
        id: Number(c.id),
        name: c.name,
        ...(counts.get(String(c.id)) ?? NO_ANIMALS),
      }));
    },

    /**
     * listCategories (docs/contract.md section 1, "GET /v1/categories (listCategories)"): up to `limit` (1 to
     * 100) categories `{ id, name }` with id above the cursor position, ascending by id (keyset paging, as
     * listPets).
     * @throws AppError validation_failed (path `cursor`) for a bad or foreign cursor.
     */
    async page(query: { limit: number; cursor?: string }): Promise<CategoryPage> {
      const afterId = query.cursor ? cursors.decode(query.cursor, undefined) : 0n;
      // One more row than asked, to learn whether a next page exists.
      const rows = await prisma.category.findMany({
        where: { id: { gt: afterId } },
        orderBy: { id: "asc" },
        take: query.limit + 1,
        select: { id: true, name: true },
      });
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        items: page.map((c) => ({ id: Number(c.id), name: c.name })),
        ...(rows.length > query.limit && last ? { nextCursor: cursors.encode({ afterId: last.id }) } : {}),
      };
    },

    /** @throws AppError validation_failed when the name is taken (in any letter case). */
    async create(name: string, actor: Actor): Promise<CategoryView> {
      try {
        const { view, queued } = await prisma.$transaction(async (tx) => {
          const row = await tx.category.create({ data: { name } });
          await writeAudit(tx, {
            actor,
            action: "category.create",
            entityType: "category",
            entityId: String(row.id),
            after: row,
          });
          const data = { id: Number(row.id), name: row.name };
          const queued = await recordEvents(tx, [{ type: "category.created", data }]);
          return { view: { ...data, ...NO_ANIMALS }, queued };
        });
        onQueued(queued);
        return view;
      } catch (error) {
        if (isUniqueViolation(error)) throw await clash(name);
        throw error;
      }
    },

    /** @throws AppError not_found, validation_failed when the name is taken (in any letter case). */
    async rename(id: number, name: string, actor: Actor): Promise<CategoryView> {
      try {
        const { view, queued } = await prisma.$transaction(async (tx) => {
          const before = await tx.category.findUnique({ where: { id: BigInt(id) } });
          if (!before) throw new AppError("not_found", `No category with id ${id}.`);
          const row = await tx.category.update({
            where: { id: before.id },
            data: { name },
          });
          await writeAudit(tx, {
            actor,
            action: "category.rename",
            entityType: "category",
            entityId: String(id),
            before,
            after: row,
          });
          const queued =
            row.name === before.name
              ? 0
              : await recordEvents(tx, [
                  { type: "category.updated", data: { id, name: row.name, previous: { name: before.name } } },
                ]);
          const counts = await cappedPetCounts(tx, [row.id]);
          return { view: { id, name: row.name, ...(counts.get(String(row.id)) ?? NO_ANIMALS) }, queued };
        });
        onQueued(queued);
        return view;
      } catch (error) {
        if (isUniqueViolation(error)) throw await clash(name, BigInt(id));
        throw error;
      }
    },

    /**
     * Deletes an unused category. The category's row is locked first (`FOR UPDATE`): that waits for animals
     * being inserted into it (their foreign-key check holds a share lock on it) and makes later inserts wait
     * for this deletion, so the count of its animals is final (docs/contract.md section 4, "Invariants under
     * concurrency"). @throws AppError not_found; conflict when animals still use it.
     */
    async remove(id: number, actor: Actor): Promise<void> {
      const queued = await prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT "id" FROM "Category" WHERE "id" = ${BigInt(id)} FOR UPDATE`;
        const before = await tx.category.findUnique({
          where: { id: BigInt(id) },
          include: { _count: { select: { pets: true } } },
        });
        if (!before) throw new AppError("not_found", `No category with id ${id}.`);
        if (before._count.pets > 0) {
          throw new AppError(
            "conflict",
            `Category "${before.name}" still has ${before._count.pets} animal(s); move or delete them first.`,
          );
        }
        await tx.category.delete({ where: { id: before.id } });
        await writeAudit(tx, {
          actor,
          action: "category.delete",
          entityType: "category",
          entityId: String(id),
          before: { ...before, _count: undefined },
        });
        return recordEvents(tx, [{ type: "category.deleted", data: { id, name: before.name } }]);
      });
      onQueued(queued);
    },
  };
}

export type CategoryService = ReturnType<typeof createCategoryService>;
