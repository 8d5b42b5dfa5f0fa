/**
 * The batched hot statements (src/pets/batched-reads.ts, batched-insert.ts), on real PostgreSQL and on
 * the embedded PGlite.
 * listPets pages: identical pages asked for together share one statement and get the same rows, distinct pages
 * get their own statement, a failing statement fails only its own callers. getPet: ids asked for together are
 * read by one statement, each caller gets its own animal or null. Neither caches: a read after a write sees it.
 * createPet: animals created together are inserted by one statement, each caller gets its own row; a row the
 * database refuses (unknown category) fails alone and writes nothing.
 */
import { loadConfig } from "@petstore/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseOf } from "../src/database/operations.ts";
import { createLogger } from "../src/logger.ts";
import { createPetInserter } from "../src/pets/batched-insert.ts";
import { createPageLoader, createPetLoader } from "../src/pets/batched-reads.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

describe.each(["PostgreSQL", "PGlite"] as const)("listPets pages on %s", (kind) => {
  let database: TestDatabase | undefined;
  let rt: Runtime;
  let categoryId: bigint;
  /** Loaders over the runtime's own database (its direct reads and its Prisma client) that count their statements. */
  let statements = 0;
  let load: ReturnType<typeof createPageLoader>;
  let loadPet: ReturnType<typeof createPetLoader>;
  let insert: ReturnType<typeof createPetInserter>;

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_pages");
    rt = await openRuntime({
      config: loadConfig({
        LOG_LEVEL: "silent",
        ...database.env,
      }),
      logger: createLogger("silent"),
    });
    const db = databaseOf(rt);
    const { prisma } = db;
    categoryId = (await prisma.category.create({ data: { name: "pages" } })).id;
    await prisma.pet.createMany({
      data: Array.from({ length: 30 }, (_, i) => ({ name: `pet ${i}`, categoryId })),
    });
    const queryRows = <T>(query: Parameters<typeof db.queryRows>[0]) => {
      statements++;
      return db.queryRows<T>(query);
    };
    load = createPageLoader(queryRows);
    loadPet = createPetLoader(queryRows);
    insert = createPetInserter(queryRows);
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  it("sends one statement for identical pages asked for together, and gives each caller the same rows", async () => {
    const alone = await load({ afterId: 0n, take: 21 });
    expect(alone.map((r) => r.name)).toEqual(Array.from({ length: 21 }, (_, i) => `pet ${i}`));
    statements = 0;
    const together = await Promise.all(Array.from({ length: 32 }, () => load({ afterId: 0n, take: 21 })));
    expect(statements).toBe(1);
    for (const rows of together) expect(rows).toEqual(alone);
  });

  it("reads ids as bigint and statuses as text, as the animal's representation needs them", async () => {
    const [row] = await load({ afterId: 0n, take: 1 });
    expect(row).toEqual({ id: expect.any(BigInt), name: "pet 0", categoryId, status: null });
    const sold = await rt.pets.create({ name: "sold one", categoryId: Number(categoryId), status: "sold" });
    expect(await loadPet(BigInt(sold.id))).toEqual({
      id: BigInt(sold.id),
      name: "sold one",
      categoryId,
      status: "sold",
    });
  });

  it("sends one statement per distinct page, each with its own rows", async () => {
    const [first] = await load({ afterId: 0n, take: 1 });
    const firstId = first?.id as bigint;
    statements = 0;
    const [a, b, c] = await Promise.all([
      load({ afterId: 0n, take: 5 }),
      load({ afterId: firstId + 9n, take: 5 }),
      load({ afterId: 0n, take: 2 }),
    ]);
    expect(statements).toBe(3);
    expect(a?.map((r) => r.name)).toEqual(["pet 0", "pet 1", "pet 2", "pet 3", "pet 4"]);
    expect(b?.map((r) => r.name)).toEqual(["pet 10", "pet 11", "pet 12", "pet 13", "pet 14"]);
    expect(c?.map((r) => r.name)).toEqual(["pet 0", "pet 1"]);
  });

  it("fails only the callers of a failing statement", async () => {
    const [bad, good] = await Promise.allSettled([
      load({ afterId: 0n, take: -1 }),
      load({ afterId: 0n, take: 3 }),
    ]);
    expect(bad.status).toBe("rejected");
    expect(good.status === "fulfilled" && good.value.length).toBe(3);
  });

  it("caches nothing: a page asked for after a create lists the new animal", async () => {
    const before = await rt.pets.list({ limit: 100 });
    const created = await rt.pets.create({ name: "latecomer", categoryId: Number(categoryId) });
    const after = await rt.pets.list({ limit: 100 });
    expect(before.items.map((p) => p.id)).not.toContain(created.id);
    expect(after.items.at(-1)).toEqual(created);
  });

  it("reads animals asked for by id together with one statement, each caller its own (or null)", async () => {
    const [first, second] = await load({ afterId: 0n, take: 2 });
    const a = first?.id as bigint;
    const b = second?.id as bigint;
    statements = 0;
    const got = await Promise.all([a, b, a, 9_223_372_036_854_775_807n, b].map((id) => loadPet(id)));
    expect(statements).toBe(1);
    expect(got.map((r) => r?.name ?? null)).toEqual(["pet 0", "pet 1", "pet 0", null, "pet 1"]);
  });

  it("getPet: an unknown id is not_found, and a read after an update sees the update", async () => {
    await expect(rt.pets.get(9_223_372_036_854_775_807n)).rejects.toMatchObject({ code: "not_found" });
    const created = await rt.pets.create({ name: "to rename", categoryId: Number(categoryId) });
    expect(await rt.pets.get(BigInt(created.id))).toEqual(created);
    await rt.pets.update({ id: created.id, name: "renamed", status: "sold" }, "test");
    expect(await rt.pets.get(BigInt(created.id))).toEqual({ ...created, name: "renamed", status: "sold" });
  });

  it("inserts animals created together with one statement, each caller getting its own row", async () => {
    const prisma = databaseOf(rt).prisma;
    const before = await prisma.pet.count();
    const inputs = Array.from({ length: 25 }, (_, i) => ({
      name: `batch ${i}`,
      categoryId: Number(categoryId),
      ...(i % 3 === 0 ? { status: "sold" as const } : {}),
    }));
    statements = 0;
    // Off UTC, so that a timestamp read as local time would show (Node applies a changed TZ at once).
    const zone = process.env.TZ;
    process.env.TZ = "America/New_York";
    const rows = await Promise.all(inputs.map((input) => insert(input))).finally(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });
    expect(statements).toBe(1);
    expect(rows.map((r) => [r.name, r.status])).toEqual(inputs.map((i) => [i.name, i.status ?? null]));
    expect(new Set(rows.map((r) => r.id)).size).toBe(25);
    expect(await prisma.pet.count()).toBe(before + 25);
    const stored = await prisma.pet.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
    for (const r of rows) {
      const found = stored.find((s) => s.id === r.id);
      expect(found?.name).toBe(r.name);
      // The statement's own timestamps read as the query builder reads them (UTC), ids as bigint.
      expect([typeof r.id, r.createdAt, r.updatedAt]).toEqual(["bigint", found?.createdAt, found?.updatedAt]);
    }
  });

  it("fails only the animal the database refuses, and writes nothing for it", async () => {
    const prisma = databaseOf(rt).prisma;
    const before = await prisma.pet.count();
    const results = await Promise.allSettled([
      insert({ name: "good 1", categoryId: Number(categoryId) }),
      insert({ name: "bad", categoryId: 987_654_321 }),
      insert({ name: "good 2", categoryId: Number(categoryId) }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await prisma.pet.count()).toBe(before + 2);
    expect(await prisma.pet.count({ where: { name: "bad" } })).toBe(0);
    const [refused, created] = await Promise.allSettled([
      rt.pets.create({ name: "bad again", categoryId: 987_654_321 }),
      rt.pets.create({ name: "fine", categoryId: Number(categoryId) }),
    ]);
    expect(refused.status === "rejected" && (refused.reason as { code?: string }).code).toBe(
      "validation_failed",
    );
    expect(created.status).toBe("fulfilled");
    await expect(rt.pets.create({ name: "bad alone", categoryId: 987_654_321 })).rejects.toMatchObject({
      code: "validation_failed",
    });
  });
});
