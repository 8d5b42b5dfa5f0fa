/**
 * The dashboard's animals table (docs/contract.md section 4 "Animals" and "Counts at scale"): one page of
 * animals filtered by status and category, searched by name (any case, anywhere in it; `%`, `_` and `\`
 * literal), sorted by id or name with the id breaking ties, with the number of matches.
 *
 * The count stops at COUNT_CAP: up to it `total` is exact, beyond it `total` is COUNT_CAP and `totalExact`
 * false ("10,000+"), so the first pages never count a whole large table. A page past the cap counts exactly
 * (the pager then knows every page) and reads its rows from whichever end of the order is nearer: the last
 * page of a million animals costs one count and one page of the index instead of an OFFSET walk over a
 * million index entries, and no page walks more than half of them. Rows are found by id first (an index-only
 * walk of `(name, id)` or the primary key) and only the page's rows are read whole. A deep page of a name search
 * sorted by name walks the matches' name range instead of sorting them, when they sort together (name-range.ts).
 */
import { type Animal, COUNT_CAP, type PetSearch } from "@petstore/contracts";
import { Prisma, type PrismaClient } from "@petstore/db";
import { likeLiteral } from "../like.ts";
import { toAnimal } from "./mapping.ts";
import { countWithNameRange, inRange, isDense, type NameRange } from "./name-range.ts";

/** An animal as the dashboard's table shows it. */
export interface PetRow extends Animal {
  categoryName: string;
  createdAt: string;
  updatedAt: string;
}

/** One page of the animals table. */
export interface PetSearchPage {
  rows: PetRow[];
  /** Matches: exact when `totalExact`, else COUNT_CAP (there are more). */
  total: number;
  totalExact: boolean;
}

interface RawPet {
  id: bigint;
  name: string;
  categoryId: bigint;
  status: "available" | "pending" | "sold" | null;
  createdAt: Date;
  updatedAt: Date;
  categoryName: string;
}

/** The longest search with no trigram in it (pg_trgm's index needs three characters). */
const SHORT_SEARCH = 2;

/**
 * Whether the search has one or two characters: its matches are looked up by the characters and character pairs
 * of the names (`pet_name_grams`, migration `short_name_search`), a lookup that is exact for such a search.
 */
const isShort = (input: PetSearch) => !!input.query && [...input.query].length <= SHORT_SEARCH;

/**
 * How the name is matched: `"grams"` through the names' characters and pairs (a short search only), `"index"` as
 * `ILIKE` on the column (served by the trigram index), `"row"` as `ILIKE` on an expression that no index serves
 * (a walk of an index in order, filtering each entry).
 */
type Match = "grams" | "index" | "row";

/** The `WHERE` clause of the table's filters, the name matched as `match` says; within `range` if given. */
function conditions(input: PetSearch, match: Match, range?: NameRange): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (input.status === "none") parts.push(Prisma.sql`"status" IS NULL`);
  else if (input.status) parts.push(Prisma.sql`"status" = ${input.status}::"PetStatus"`);
  if (input.categoryId) parts.push(Prisma.sql`"categoryId" = ${BigInt(input.categoryId)}`);
  if (input.query) {
    if (match === "grams" && isShort(input))
      parts.push(Prisma.sql`pet_name_grams("name") @> ARRAY[lower(${input.query})]`);
    else {
      const name = match === "row" ? Prisma.sql`("name" || '')` : Prisma.sql`"name"`;
      parts.push(Prisma.sql`${name} ILIKE ${`%${likeLiteral(input.query)}%`}`);
    }
  }
  if (range) parts.push(inRange(range));
  return parts.length ? Prisma.sql`WHERE ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}

/** How a search finds all its matches (counts, the collected pages): by the names' pairs when it is short. */
const lookup = (input: PetSearch): Match => (isShort(input) ? "grams" : "index");

/**
 * Whether a page sorted by name is found through the name's trigram index (then sorted) rather than by walking the
 * `(name, id)` index and filtering: with a search of three characters or more. The planner expects a search's
 * matches spread evenly over the names, but a name search matches names that sort together ("Bella 1" ... "Bella
 * 99999"), so a walk from the other end reads almost the whole index before the first match (docs/performance.md
 * "Search with a sort"). Shorter searches have no trigram to look up, and match densely enough to walk.
 */
const sortsFoundRows = (input: PetSearch) =>
  input.sortBy === "name" && (input.query?.trim().length ?? 0) >= 3;

/**
 * Past this many rows from the nearer end, a short search's page is read by walking the order's index and matching
 * each entry's name (no walk within a budget could hold the page).
 */
const WALK_LIMIT = 50_000;

/**
 * How many entries of the order's index a short search's page may walk before its matches are collected and sorted
 * instead: a short search matching many names finds its page in a short walk, one whose matches sort together
 * elsewhere ("x" finds only "Max ...") would walk most of the index (docs/performance.md "Search with a sort").
 */
const walkBudget = (wanted: number) => Math.min(WALK_LIMIT, Math.max(5_000, 4 * wanted));

/**
 * `ORDER BY` of the table's sort, or of its reverse; `alias` qualifies the columns. With `unindexed`, the name is
 * ordered as an expression (the same order), which no index provides, so the planner finds the matches first.
 */
function orderBy(input: PetSearch, reversed: boolean, alias = "", unindexed = false): Prisma.Sql {
  const ascending = (input.sortDirection === "asc") !== reversed;
  const dir = Prisma.raw(ascending ? "ASC" : "DESC");
  const col = (name: string) => Prisma.raw(`${alias}"${name}"`);
  const name = unindexed ? Prisma.sql`(${col("name")} || '')` : col("name");
  return input.sortBy === "name"
    ? Prisma.sql`ORDER BY ${name} ${dir}, ${col("id")} ${dir}`
    : Prisma.sql`ORDER BY ${col("id")} ${dir}`;
}

type Db = Pick<PrismaClient, "$queryRaw">;

/**
 * `take` matches from `skip` on in the table's order (or its reverse), the page's rows read whole; with `range`, by
 * a walk of the matches' name range (name-range.ts).
 */
async function pageRows(
  db: Db,
  input: PetSearch,
  skip: number,
  take: number,
  reversed: boolean,
  range?: NameRange,
) {
  const ids = range
    ? Prisma.sql`SELECT "id" FROM "Pet" ${conditions(input, "row", range)} ${orderBy(input, reversed)}
                 OFFSET ${skip} LIMIT ${take}`
    : isShort(input)
      ? await shortSearchIds(db, input, skip, take, reversed)
      : Prisma.sql`SELECT "id" FROM "Pet" ${conditions(input, "index")}
                   ${orderBy(input, reversed, "", sortsFoundRows(input))} OFFSET ${skip} LIMIT ${take}`;
  const rows = await db.$queryRaw<RawPet[]>`
    SELECT p."id", p."name", p."categoryId", p."status"::text AS "status", p."createdAt", p."updatedAt",
           c."name" AS "categoryName"
    FROM (${ids}) AS k
    JOIN "Pet" AS p ON p."id" = k."id"
    JOIN "Category" AS c ON c."id" = p."categoryId"
    ${orderBy(input, reversed, "p.")}`;
  const view = rows.map(
    (p): PetRow => ({
      ...toAnimal(p),
      categoryName: p.categoryName,
      createdAt: p.createdAt.toISOString(),
      updatedAt: p.updatedAt.toISOString(),
    }),
  );
  return reversed ? view.reverse() : view;
}

/**
 * The ids of a short search's page (a subquery): the first `skip + take` matches of a bounded walk of the order's
 * index when the walk holds them (the index's order is the page's, so they are the page), else every match looked up
 * by the names' pairs and sorted (`walkBudget`).
 */
async function shortSearchIds(
  db: Db,
  input: PetSearch,
  skip: number,
  take: number,
  reversed: boolean,
): Promise<Prisma.Sql> {
  const walk = Prisma.sql`SELECT "id" FROM "Pet" ${conditions(input, "row")} ${orderBy(input, reversed)}
                          OFFSET ${skip} LIMIT ${take}`;
  if (skip + take > WALK_LIMIT) return walk;
  const { query: _, ...filters } = input;
  const walked = await db.$queryRaw<{ id: bigint }[]>`
    SELECT w."id" FROM (
      SELECT "id", "name" FROM "Pet" ${conditions(filters, "index")} ${orderBy(input, reversed)}
      LIMIT ${walkBudget(skip + take)}) AS w
    WHERE (w."name" || '') ILIKE ${`%${likeLiteral(input.query ?? "")}%`}
    ${orderBy(input, reversed, "w.")} OFFSET ${skip} LIMIT ${take}`;
  if (walked.length === take)
    return Prisma.sql`SELECT unnest(${walked.map((r) => r.id.toString())}::bigint[]) AS "id"`;
  // Ordered by expressions, which no index provides: the planner looks the matches up, then keeps the page's.
  const collected =
    input.sortBy === "name"
      ? orderBy(input, reversed, "", true)
      : Prisma.sql`ORDER BY ("id" + 0) ${Prisma.raw((input.sortDirection === "asc") !== reversed ? "ASC" : "DESC")}`;
  return Prisma.sql`SELECT "id" FROM "Pet" ${conditions(input, "grams")} ${collected} OFFSET ${skip} LIMIT ${take}`;
}

/** Matches, counted up to `cap + 1` (null: all of them). */
async function countMatches(db: Db, input: PetSearch, cap: number | null): Promise<number> {
  const limit = cap === null ? Prisma.empty : Prisma.sql`LIMIT ${cap + 1}`;
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::float8 AS n FROM (SELECT 1 FROM "Pet" ${conditions(input, lookup(input))} ${limit}) AS m`;
  return row?.n ?? 0;
}

/** The animals table's query (see the module comment). */
export function createPetSearch(prisma: PrismaClient) {
  return async function search(input: PetSearch): Promise<PetSearchPage> {
    const skip = (input.page - 1) * input.pageSize;
    if (skip + input.pageSize <= COUNT_CAP) {
      const [counted, rows] = await Promise.all([
        countMatches(prisma, input, COUNT_CAP),
        pageRows(prisma, input, skip, input.pageSize, false),
      ]);
      return { rows, total: Math.min(counted, COUNT_CAP), totalExact: counted <= COUNT_CAP };
    }
    // Past the cap: the exact count and the page from one snapshot, so a page read from the far end lines up.
    return prisma.$transaction(
      async (tx) => {
        const { total, range } =
          sortsFoundRows(input) || (isShort(input) && input.sortBy === "name")
            ? await countWithNameRange(tx, conditions(input, lookup(input)))
            : { total: await countMatches(tx, input, null), range: null };
        const left = total - skip;
        if (left <= 0) return { rows: [], total, totalExact: true };
        const take = Math.min(input.pageSize, left);
        const walk = range && (await isDense(tx, range, total)) ? range : undefined;
        const rows =
          left - take < skip
            ? await pageRows(tx, input, left - take, take, true, walk)
            : await pageRows(tx, input, skip, take, false, walk);
        return { rows, total, totalExact: true };
      },
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 60_000 },
    );
  };
}
