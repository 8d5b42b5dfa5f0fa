/**
 * The dashboard's lists past COUNT_CAP rows (docs/contract.md section 4 "Counts at scale"), on PostgreSQL and
 * the embedded PGlite, with 12,036 animals and 12,345 audit entries:
 * - the animals table: every page (filters, search, both sorts and directions, pages before, across and past
 *   the cap, read forwards or from the far end) holds exactly the rows of a plain OFFSET query, and its total
 *   is exact up to the cap and "10,000+" (total 10,000, not exact) beyond, exact again on a page past the cap;
 * - categories count their animals up to the cap; the overview's animals by status are exact up to the cap
 *   and estimated from the planner's statistics beyond it (counted exactly while there are none);
 * - the audit log: the same for its pages, the action filter, the "Who" list (users, then the other actors),
 *   and the export of all 12,345 entries, complete, newest first, in batches.
 */

import { loadConfig } from "@petstore/config";
import { AUDIT_ACTIONS, COUNT_CAP, type PetSearch } from "@petstore/contracts";
import type { Prisma } from "@petstore/db";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { databaseOf } from "../src/testing/index.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

const WORDS = ["Rex", "bella", "BELLA", "Max 50%", "max_power", "Luna", "luna\\moon"];
const AUDIT_ENTRIES = 12_345;

describe.each(["PostgreSQL", "PGlite"] as const)("dashboard lists at scale on %s", (kind) => {
  let database: TestDatabase | undefined;
  let rt: Runtime;
  let prisma: ReturnType<typeof databaseOf>["prisma"];
  let categories: { id: number; name: string }[];

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_lists");
    rt = await openRuntime({
      config: loadConfig({
        LOG_LEVEL: "silent",
        ANALYTICS_ENABLED: "false",
        ...database.env,
      }),
      logger: createLogger("silent"),
    });
    prisma = databaseOf(rt).prisma;
    await rt.seed();
    categories = (await prisma.category.findMany({ orderBy: { id: "asc" } })).map((c) => ({
      id: Number(c.id),
      name: c.name,
    }));
    // 12,000 more animals: the first 10,500 available dogs, the rest spread over statuses and categories, with
    // names sharing words (and LIKE's wildcards) in different cases.
    await prisma.$executeRawUnsafe(
      `INSERT INTO "Pet" ("name", "categoryId", "status", "updatedAt")
       SELECT (ARRAY[${WORDS.map((w) => `'${w.replace(/'/g, "''")}'`).join(",")}])[1 + i % ${WORDS.length}] || ' ' || (i % 997),
              CASE WHEN i <= 10500 THEN ${categories[0]?.id} ELSE (SELECT min("id") FROM "Category") + i % 6 END,
              (CASE WHEN i <= 10500 THEN 'available'
                    ELSE (ARRAY['available', 'pending', 'sold', NULL])[1 + i % 4] END)::"PetStatus",
              now()
       FROM generate_series(1, 12000) AS i`,
    );
    await prisma.$executeRawUnsafe(
      `INSERT INTO "AuditLog" ("at", "actor", "action", "entityType", "entityId", "after")
       SELECT now() - (${AUDIT_ENTRIES} - i) * interval '1 minute',
              (ARRAY['system', 'cli:ops', 'user:nobody-any-more@example.com', 'anonymous'])[1 + i % 4],
              (ARRAY['pet.update', 'apiKey.ban', 'session.signInFailed'])[1 + i % 3],
              'pet', (SELECT min("id") FROM "Pet")::text, jsonb_build_object('name', 'Entry ' || i)
       FROM generate_series(1, ${AUDIT_ENTRIES}) AS i`,
    );
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  /** The animals of `input` by a plain query: Prisma's filters, ORDER BY, OFFSET and LIMIT. */
  async function referencePets(input: PetSearch) {
    const where: Prisma.PetWhereInput = {
      ...(input.status === "none" ? { status: null } : input.status ? { status: input.status } : {}),
      ...(input.categoryId ? { categoryId: BigInt(input.categoryId) } : {}),
      ...(input.query
        ? {
            name: { contains: input.query.replace(/[\\%_]/g, (c) => `\\${c}`), mode: "insensitive" as const },
          }
        : {}),
    };
    const [count, rows] = await Promise.all([
      prisma.pet.count({ where }),
      prisma.pet.findMany({
        where,
        orderBy: [{ [input.sortBy]: input.sortDirection }, { id: input.sortDirection }],
        skip: (input.page - 1) * input.pageSize,
        take: input.pageSize,
        select: { id: true },
      }),
    ]);
    return { count, ids: rows.map((r) => Number(r.id)) };
  }

  it("pages the animals exactly like a plain OFFSET query, with the count capped", async () => {
    const search = fc.record({
      // Where the page starts: the first rows, around the cap, or anywhere up to a little past the last animal.
      position: fc.oneof(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 9_800, max: 10_200 }),
        fc.integer({ min: 0, max: 12_100 }),
      ),
      pageSize: fc.constantFrom(10, 20, 50, 100),
      sortBy: fc.constantFrom("id" as const, "name" as const),
      sortDirection: fc.constantFrom("asc" as const, "desc" as const),
      // Filters are left out often: only large match sets have pages past the cap.
      status: fc.option(
        fc.constantFrom("available" as const, "pending" as const, "sold" as const, "none" as const),
        {
          nil: undefined,
          freq: 1,
        },
      ),
      categoryIndex: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined, freq: 1 }),
      query: fc.option(fc.constantFrom("bella", "max", "50%", "_", "\\", "LUNA 1", "rex 99"), {
        nil: undefined,
        freq: 1,
      }),
    });
    await fc.assert(
      fc.asyncProperty(search, async ({ categoryIndex, position, ...rest }) => {
        const input: PetSearch = {
          ...rest,
          page: 1 + Math.floor(position / rest.pageSize),
          ...(categoryIndex === undefined ? {} : { categoryId: categories[categoryIndex]?.id as number }),
        };
        const [page, reference] = await Promise.all([rt.pets.search(input), referencePets(input)]);
        expect(page.rows.map((r) => r.id)).toEqual(reference.ids);
        if (input.page * input.pageSize <= COUNT_CAP)
          expect({ total: page.total, exact: page.totalExact }).toEqual({
            total: Math.min(reference.count, COUNT_CAP),
            exact: reference.count <= COUNT_CAP,
          });
        else
          expect({ total: page.total, exact: page.totalExact }).toEqual({
            total: reference.count,
            exact: true,
          });
      }),
      { numRuns: kind === "PostgreSQL" ? 60 : 30 },
    );
  });

  it("says 10,000+ on the first page of a large table, and the exact total past the cap", async () => {
    const first = await rt.pets.search({ page: 1, pageSize: 20, sortBy: "name", sortDirection: "asc" });
    expect(first).toMatchObject({ total: COUNT_CAP, totalExact: false });
    expect(first.rows).toHaveLength(20);
    const lastPage = { page: 602, pageSize: 20, sortBy: "name", sortDirection: "asc" } as const;
    const last = await rt.pets.search(lastPage);
    expect(last).toMatchObject({ total: 12_036, totalExact: true });
    expect(last.rows.map((r) => r.id)).toEqual((await referencePets(lastPage)).ids);
    expect(last.rows).toHaveLength(16);
    const beyond = await rt.pets.search({ page: 700, pageSize: 20, sortBy: "id", sortDirection: "desc" });
    expect(beyond).toEqual({ rows: [], total: 12_036, totalExact: true });
  });

  it("counts each category's animals up to the cap", async () => {
    const list = await rt.categories.list();
    const dogs = list.find((c) => c.id === categories[0]?.id);
    expect(dogs).toMatchObject({ petCount: COUNT_CAP, petCountExact: false });
    for (const c of list.filter((c) => c.id !== categories[0]?.id)) {
      expect(c.petCountExact).toBe(true);
      expect(c.petCount).toBe(await prisma.pet.count({ where: { categoryId: BigInt(c.id) } }));
    }
  });

  it("counts animals by status exactly up to the cap and estimates beyond it from the statistics", async () => {
    const truth = async (status: "available" | "pending" | "sold" | null) =>
      prisma.pet.count({ where: { status } });
    if (kind === "PGlite") {
      // No statistics yet (PGlite runs no autovacuum): counted exactly.
      expect((await rt.usage.animalsByStatus())[0]).toEqual({
        status: "available",
        count: await truth("available"),
        exact: true,
      });
    }
    await prisma.$executeRawUnsafe(`ANALYZE "Pet"`);
    const counts = await rt.usage.animalsByStatus();
    const available = await truth("available");
    expect(counts[0]).toMatchObject({ status: "available", exact: false });
    expect(Math.abs((counts[0]?.count ?? 0) - available) / available).toBeLessThan(0.1);
    expect(counts.slice(1)).toEqual([
      { status: "pending", count: await truth("pending"), exact: true },
      { status: "sold", count: await truth("sold"), exact: true },
      { status: "none", count: await truth(null), exact: true },
    ]);
  });

  it("pages the audit log like a plain OFFSET query, filters by action, and caps the count", async () => {
    const ids = async (where: Prisma.AuditLogWhereInput, skip: number, take: number) =>
      (
        await prisma.auditLog.findMany({ where, orderBy: { id: "desc" }, skip, take, select: { id: true } })
      ).map((r) => Number(r.id));
    const all = await prisma.auditLog.count();
    const first = await rt.auditLog.list({ page: 1, pageSize: 25 });
    expect(first).toMatchObject({ total: COUNT_CAP, totalExact: false });
    expect(first.rows.map((r) => r.id)).toEqual(await ids({}, 0, 25));
    for (const page of [401, 402, 450, Math.ceil(all / 25)]) {
      const p = await rt.auditLog.list({ page, pageSize: 25 });
      expect(p).toMatchObject({ total: all, totalExact: true });
      expect(p.rows.map((r) => r.id)).toEqual(await ids({}, (page - 1) * 25, 25));
    }
    const bans = await rt.auditLog.list({ page: 1, pageSize: 100, action: "apiKey.ban" });
    expect(bans).toMatchObject({
      total: await prisma.auditLog.count({ where: { action: "apiKey.ban" } }),
      totalExact: true,
    });
    expect(bans.rows.every((r) => r.action === "apiKey.ban")).toBe(true);
    const deep = await rt.auditLog.list({ page: 50, pageSize: 100, action: "apiKey.ban", actor: "cli:ops" });
    expect(deep.rows.map((r) => r.id)).toEqual(
      await ids({ action: "apiKey.ban", actor: "cli:ops" }, 4900, 100),
    );
  });

  it("offers every user and the other actors in the log as Who, reading neither table whole", async () => {
    await rt.users.create(
      { email: "zed@example.com", name: "Zed", role: "staff", password: "a long password 1" },
      "cli:root",
    );
    const actors = await rt.auditLog.actors();
    expect(actors).toEqual([
      { actor: "user:zed@example.com", label: "Zed <zed@example.com>" },
      { actor: "anonymous", label: "anonymous" },
      { actor: "cli:ops", label: "cli:ops" },
      { actor: "cli:root", label: "cli:root" },
      { actor: "system", label: "system" },
    ]);
  });

  it("exports every entry, newest first, in batches", async () => {
    const total = await prisma.auditLog.count();
    expect(total).toBeGreaterThan(AUDIT_ENTRIES);
    const seen: number[] = [];
    let batches = 0;
    for await (const batch of rt.auditLog.exportBatches({}, 1_000)) {
      batches++;
      expect(batch.length).toBeLessThanOrEqual(1_000);
      seen.push(...batch.map((e) => e.id));
    }
    expect(batches).toBe(Math.ceil(total / 1_000));
    expect(seen).toEqual(
      (await prisma.auditLog.findMany({ orderBy: { id: "desc" }, select: { id: true } })).map((r) =>
        Number(r.id),
      ),
    );
    const banned: string[] = [];
    for await (const batch of rt.auditLog.exportBatches({ action: "apiKey.ban" }, 500))
      banned.push(...batch.map((e) => e.action));
    expect(banned).toHaveLength(await prisma.auditLog.count({ where: { action: "apiKey.ban" } }));
    expect(new Set(banned)).toEqual(new Set(["apiKey.ban"]));
    expect(AUDIT_ACTIONS).toContain("apiKey.ban");
  });
});
