/**
 * Deep pages of a name search sorted by name (past COUNT_CAP), on PostgreSQL and the embedded PGlite: whether the
 * page is read by walking the matches' name range (they sort together: "bella") or by sorting the matches (a range
 * mostly of other names: "bel", whose matches begin with "Bella" and end with "Zabel"), it holds exactly the rows
 * of a plain OFFSET query, with the exact total. Searches of one or two characters (found by a bounded walk or by
 * the names' character pairs) page like the plain query too, first pages and deep ones, by name and by id.
 */

import { loadConfig } from "@petstore/config";
import { COUNT_CAP, type PetSearch } from "@petstore/contracts";
import { Prisma } from "@petstore/db";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { likeLiteral } from "../src/like.ts";
import { createLogger } from "../src/logger.ts";
import { countWithNameRange, isDense } from "../src/pets/name-range.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { databaseOf } from "../src/testing/index.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

/** Names in blocks: [name, how many], each numbered 1..n, every tenth without a status, the others available. */
const BLOCKS = [
  ["Bella", 12_000],
  ["Daisy", 4_000],
  ["Isabella", 300],
  ["Max", 12_000],
  ["Zabel", 50],
] as const;

describe.each(["PostgreSQL", "PGlite"] as const)(
  "deep pages of a name search sorted by name on %s",
  (kind) => {
    let database: TestDatabase | undefined;
    let rt: Runtime;
    let prisma: ReturnType<typeof databaseOf>["prisma"];

    beforeAll(async () => {
      database = await createTestDatabase(kind, "petstore_name_range");
      rt = await openRuntime({
        config: loadConfig({ LOG_LEVEL: "silent", ANALYTICS_ENABLED: "false", ...database.env }),
        logger: createLogger("silent"),
      });
      prisma = databaseOf(rt).prisma;
      const category = await prisma.category.create({ data: { name: "Dogs" } });
      for (const [name, n] of BLOCKS)
        await prisma.$executeRawUnsafe(
          `INSERT INTO "Pet" ("name", "categoryId", "status", "updatedAt")
         SELECT '${name} ' || i, ${category.id},
                (CASE WHEN i % 10 = 0 THEN NULL ELSE 'available' END)::"PetStatus", now()
         FROM generate_series(1, ${n}) AS i`,
        );
      await prisma.$executeRawUnsafe(`ANALYZE "Pet"`);
    });
    afterAll(async () => {
      await rt?.close();
      await database?.remove();
    });

    /** The animals of `input` by a plain query: Prisma's filters, ORDER BY, OFFSET and LIMIT. */
    async function reference(input: PetSearch) {
      const where: Prisma.PetWhereInput = {
        ...(input.status === "none" ? { status: null } : input.status ? { status: input.status } : {}),
        // Prisma's `contains` leaves LIKE's wildcards to the caller.
        name: { contains: likeLiteral(input.query ?? ""), mode: "insensitive" },
      };
      const [count, rows] = await Promise.all([
        prisma.pet.count({ where }),
        prisma.pet.findMany({
          where,
          orderBy:
            input.sortBy === "name"
              ? [{ name: input.sortDirection }, { id: input.sortDirection }]
              : [{ id: input.sortDirection }],
          skip: (input.page - 1) * input.pageSize,
          take: input.pageSize,
          select: { id: true },
        }),
      ]);
      return { count, ids: rows.map((r) => Number(r.id)) };
    }

    it("walks the range where the matches sort together, and sorts them where it holds mostly other names", async () => {
      const rangeOf = async (query: string) => {
        const { total, range } = await countWithNameRange(
          prisma,
          Prisma.sql`WHERE "name" ILIKE ${`%${query}%`}`,
        );
        if (!range) throw new Error(`no matches for ${query}`);
        return isDense(prisma, range, total);
      };
      expect(await rangeOf("bella")).toBe(true);
      expect(await rangeOf("bel")).toBe(false);
    });

    it("pages exactly like a plain OFFSET query either way", async () => {
      const search = fc.record({
        // Past the cap, up to a little past the last match of the largest search.
        position: fc.integer({ min: COUNT_CAP, max: 12_500 }),
        pageSize: fc.constantFrom(10, 20, 50, 100),
        sortDirection: fc.constantFrom("asc" as const, "desc" as const),
        query: fc.constantFrom("bella", "BELLA", "bel"),
        // Available: 11,070 of "bella"'s 12,300 matches, a deep page still; none: 1,230, past the end.
        status: fc.option(fc.constantFrom("available" as const, "none" as const), {
          nil: undefined,
          freq: 2,
        }),
      });
      await fc.assert(
        fc.asyncProperty(search, async ({ position, ...rest }) => {
          const input: PetSearch = {
            ...rest,
            sortBy: "name",
            page: 1 + Math.floor(position / rest.pageSize),
          };
          const [page, expected] = await Promise.all([rt.pets.search(input), reference(input)]);
          expect(page.rows.map((r) => r.id)).toEqual(expected.ids);
          expect({ total: page.total, exact: page.totalExact }).toEqual({
            total: expected.count,
            exact: true,
          });
        }),
        { numRuns: kind === "PostgreSQL" ? 40 : 20 },
      );
    });

    it("pages searches of one or two characters exactly like a plain OFFSET query", async () => {
      const search = fc.record({
        // First pages (a count capped at COUNT_CAP), deep ones, and past the last match.
        position: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 29_000 })),
        pageSize: fc.constantFrom(10, 20, 100),
        sortBy: fc.constantFrom("name" as const, "id" as const),
        sortDirection: fc.constantFrom("asc" as const, "desc" as const),
        // "x" only in "Max ...", which sort after 16,300 other names; "ZA" in "Zabel", "a" in nearly every name.
        query: fc.constantFrom("x", "X", "ax", "ZA", "a", "9", "zq", "%", "a_"),
        status: fc.option(fc.constantFrom("available" as const, "none" as const), {
          nil: undefined,
          freq: 2,
        }),
      });
      await fc.assert(
        fc.asyncProperty(search, async ({ position, ...rest }) => {
          const input: PetSearch = { ...rest, page: 1 + Math.floor(position / rest.pageSize) };
          const [page, expected] = await Promise.all([rt.pets.search(input), reference(input)]);
          expect(page.rows.map((r) => r.id)).toEqual(expected.ids);
          const capped = (input.page - 1) * input.pageSize + input.pageSize <= COUNT_CAP;
          expect({ total: page.total, exact: page.totalExact }).toEqual(
            capped && expected.count > COUNT_CAP
              ? { total: COUNT_CAP, exact: false }
              : { total: expected.count, exact: true },
          );
        }),
        { numRuns: kind === "PostgreSQL" ? 60 : 25 },
      );
    });
  },
);
