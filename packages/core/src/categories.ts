/**
 * Category domain service (dashboard and seed): list with animal counts, create, rename, delete when unused.
 * Names are unique regardless of letter case (docs/contract.md section 4); the database enforces it with a
 * unique index on lower(name), and the service names the existing category in its answer.
 */
import { AppError } from "@petstore/contracts";
import { Prisma } from "@petstore/db";
import { writeAudit } from "./audit.ts";
import type { Actor, CoreDeps } from "./deps.ts";
import { likeLiteral } from "./like.ts";

export interface CategoryView {
  id: number;
  name: string;
  petCount: number;
}

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

export function createCategoryService({ prisma }: Pick<CoreDeps, "prisma">) {
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
    /** All categories by name, each with how many animals use it. */
    async list(): Promise<CategoryView[]> {
      const rows = await prisma.category.findMany({
        orderBy: { name: "asc" },
        include: { _count: { select: { pets: true } } },
      });
      return rows.map((c) => ({ id: Number(c.id), name: c.name, petCount: c._count.pets }));
    },

    /** @throws AppError validation_failed when the name is taken (in any letter case). */
    async create(name: string, actor: Actor): Promise<CategoryView> {
      try {
        return await prisma.$transaction(async (tx) => {
          const row = await tx.category.create({ data: { name } });
          await writeAudit(tx, {
            actor,
            action: "category.create",
            entityType: "category",
            entityId: String(row.id),
            after: row,
          });
          return { id: Number(row.id), name: row.name, petCount: 0 };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw await clash(name);
        throw error;
      }
    },

    /** @throws AppError not_found, validation_failed when the name is taken (in any letter case). */
    async rename(id: number, name: string, actor: Actor): Promise<CategoryView> {
      try {
        return await prisma.$transaction(async (tx) => {
          const before = await tx.category.findUnique({ where: { id: BigInt(id) } });
          if (!before) throw new AppError("not_found", `No category with id ${id}.`);
          const row = await tx.category.update({
            where: { id: before.id },
            data: { name },
            include: { _count: { select: { pets: true } } },
          });
          await writeAudit(tx, {
            actor,
            action: "category.rename",
            entityType: "category",
            entityId: String(id),
            before,
            after: { ...row, _count: undefined },
          });
          return { id, name: row.name, petCount: row._count.pets };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw await clash(name, BigInt(id));
        throw error;
      }
    },

    /** @throws AppError not_found; conflict when animals still use it. */
    async remove(id: number, actor: Actor): Promise<void> {
      await prisma.$transaction(async (tx) => {
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
      });
    },
  };
}

export type CategoryService = ReturnType<typeof createCategoryService>;
