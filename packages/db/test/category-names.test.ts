/**
 * The migration that makes category names unique regardless of letter case: on a database holding names
 * that differ only in case it stops with a message naming them and changes nothing; once they are
 * renamed it applies, and from then on the database itself refuses such a duplicate.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../src/index.ts";
import { deployMigrations, MigrationError, resolveMigration } from "../src/migrate/index.ts";
import { copyMigrations, createTempPostgresDatabase, repoMigrationNames, tempDir } from "./helpers.ts";

const CASE_MIGRATION = repoMigrationNames().find((n) => n.endsWith("_category_name_case_insensitive"));

describe.each([
  ["PostgreSQL", "postgres"],
  ["PGlite", "pglite"],
] as const)("category_name_case_insensitive on %s", (_label, kind) => {
  let db: Database;
  let drop = async () => {};
  const tmp = tempDir("case-names");
  const before = path.join(tmp.dir, "before");
  const all = path.join(tmp.dir, "all");

  beforeAll(async () => {
    if (kind === "postgres") {
      const temp = await createTempPostgresDatabase();
      db = await openDatabase({ kind: "postgres", url: temp.url });
      drop = temp.drop;
    } else {
      db = await openDatabase({ kind: "pglite", dir: "memory://" });
    }
    copyMigrations(all);
    copyMigrations(before);
    const later = repoMigrationNames().filter((n) => CASE_MIGRATION && n >= CASE_MIGRATION);
    for (const name of later) fs.rmSync(path.join(before, name), { recursive: true });
  });
  afterAll(async () => {
    await db?.close();
    await drop();
    tmp.remove();
  });

  it("exists in the repository", () => {
    expect(CASE_MIGRATION).toBeDefined();
  });

  it("stops with a message naming the clashing categories, and changes nothing", async () => {
    await deployMigrations(db, { paths: { migrationsDir: before } });
    await db.prisma.category.createMany({
      data: [{ name: "hamsters UX" }, { name: "Hamsters ux" }, { name: "dogs" }],
    });
    const failure = await deployMigrations(db, { paths: { migrationsDir: all } }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as Error).message).toMatch(
      /Category names must be unique regardless of letter case, but these differ only in case: hamsters UX \(id \d+\), Hamsters ux \(id \d+\)\. Rename or merge them/,
    );
    // Still possible to insert a case variant: the index was not created.
    await db.prisma.category.create({ data: { name: "DOGS" } });
    await db.prisma.category.delete({ where: { name: "DOGS" } });
  });

  it("applies once the names are renamed, and the database refuses case duplicates from then on", async () => {
    await resolveMigration(db, String(CASE_MIGRATION), "rolled-back", { paths: { migrationsDir: all } });
    await db.prisma.category.update({ where: { name: "Hamsters ux" }, data: { name: "Hamsters (old)" } });
    await deployMigrations(db, { paths: { migrationsDir: all } });
    await expect(db.prisma.category.create({ data: { name: "HAMSTERS ux" } })).rejects.toMatchObject({
      code: "P2002",
    });
    await db.prisma.category.create({ data: { name: "Hamsters too" } });
  });
});
