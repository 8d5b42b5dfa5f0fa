/**
 * Deep pages of a name search sorted by name (search.ts, past COUNT_CAP). Sorting every match costs most of such
 * a page: in a database whose collation is not "C" each comparison of names goes through the C library's
 * strcoll, and a search such as "bella" has 100,000 matches at scale. A name search's matches mostly sort
 * together, though ("Bella 1" ... "Bella 99999"), so the `(name, id)` index already holds them in order between
 * the first and the last matching name: when that range holds few other animals, walking it from the nearer end
 * and skipping the names that do not match finds the page without a sort (docs/performance.md "Search with a
 * sort").
 */
import { Prisma, type PrismaClient } from "@petstore/db";

/** The first and last matching names in the table's collation: every match's name lies between them. */
export interface NameRange {
  first: string;
  last: string;
}

/**
 * How many index entries per match the walk may pass at most: at two, a walk costs about what sorting the matches
 * would at worst, and far less where they sort together.
 */
export const ENTRIES_PER_MATCH = 2;

type Db = Pick<PrismaClient, "$queryRaw">;

/**
 * Counts the rows of `where` (a `WHERE` clause on "Pet", or nothing) and finds their name range in the same scan.
 * @returns the exact count, and the range (null without matches).
 */
export async function countWithNameRange(
  db: Db,
  where: Prisma.Sql,
): Promise<{ total: number; range: NameRange | null }> {
  const [row] = await db.$queryRaw<{ n: number; first: string | null; last: string | null }[]>`
    SELECT count(*)::float8 AS n, min("name") AS "first", max("name") AS "last" FROM "Pet" ${where}`;
  const total = row?.n ?? 0;
  return {
    total,
    range: row?.first != null && row.last != null ? { first: row.first, last: row.last } : null,
  };
}

/**
 * Whether `range` holds at most ENTRIES_PER_MATCH × `matches` animals, counted on the `(name, id)` index and
 * never beyond that bound, so a sparse range costs no more to reject than a dense one to accept.
 */
export async function isDense(db: Db, range: NameRange, matches: number): Promise<boolean> {
  const bound = ENTRIES_PER_MATCH * matches;
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::float8 AS n
    FROM (SELECT 1 FROM "Pet" WHERE ${inRange(range)} LIMIT ${bound + 1}) AS r`;
  return (row?.n ?? 0) <= bound;
}

/** The condition that keeps a walk of the `(name, id)` index within `range`. */
export const inRange = (range: NameRange): Prisma.Sql =>
  Prisma.sql`"name" BETWEEN ${range.first} AND ${range.last}`;
