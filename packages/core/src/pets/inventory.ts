/**
 * getInventory's counts (docs/contract.md section 1; docs/architecture.md "Orders"): sums of the `PetStatusCount`
 * rows the Pet triggers append, folded into one row per status by the sweep.
 */
import type { Inventory } from "@petstore/contracts";
import type { PrismaClient, QueryRows } from "@petstore/db";
import { Prisma } from "@petstore/db";

/** `{ available, pending, sold, unset }` as of now. */
export async function readInventory(queryRows: QueryRows): Promise<Inventory> {
  const rows = await queryRows<{ status: string; n: number }>(Prisma.sql`
    SELECT "status", sum("n")::int AS "n" FROM "PetStatusCount" GROUP BY "status"`);
  const inventory: Inventory = { available: 0, pending: 0, sold: 0, unset: 0 };
  for (const row of rows)
    if (row.status in inventory) inventory[row.status as keyof Inventory] = Number(row.n);
  return inventory;
}

/**
 * Folds the count rows into one per status (none for a status at 0), in one statement, when some status has
 * more than one. Rows appended meanwhile are left for the next fold; instances folding at once each fold the rows
 * they deleted. @returns the rows it wrote (0: nothing to fold).
 */
export async function foldInventory(prisma: Pick<PrismaClient, "$executeRaw">): Promise<number> {
  return prisma.$executeRaw`
    WITH folded AS (
      DELETE FROM "PetStatusCount"
      WHERE (SELECT count(*) FROM "PetStatusCount") > (SELECT count(DISTINCT "status") FROM "PetStatusCount")
      RETURNING "status", "n"
    )
    INSERT INTO "PetStatusCount" ("status", "n")
    SELECT "status", sum("n") FROM folded GROUP BY "status" HAVING sum("n") <> 0`;
}
