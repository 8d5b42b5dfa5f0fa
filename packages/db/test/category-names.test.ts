/**
 * The migration that makes category names unique regardless of letter case: on a database holding names
 * that differ only in case it stops with a message naming them and changes nothing; once they are
 * renamed it applies, and from then on the database itself refuses such a duplicate.
 */
import { describe, expect, it } from "vitest";
import { deployMigrations, MigrationError, resolveMigration } from "../src/migrate/index.ts";
import { repoMigrationNames, useMigrationFixture } from "./helpers.ts";

const CASE_MIGRATION = repoMigrationNames().find((n) => n.endsWith("_category_name_case_insensitive"));

describe.each([
  ["PostgreSQL", "postgres"],
  ["PGlite", "pglite"],
] as const)("category_name_case_insensitive on %s", (_label, kind) => {
  const fx = useMigrationFixture(kind, CASE_MIGRATION);

  it("exists in the repository", () => {
    expect(CASE_MIGRATION).toBeDefined();
  });

  it("stops with a message naming the clashing categories, and changes nothing", async () => {
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.before } });
    await fx.db.prisma.category.createMany({
      data: [{ name: "hamsters UX" }, { name: "Hamsters ux" }, { name: "dogs" }],
    });
    const failure = await deployMigrations(fx.db, { paths: { migrationsDir: fx.all } }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as Error).message).toMatch(
      /Category names must be unique regardless of letter case, but these differ only in case: hamsters UX \(id \d+\), Hamsters ux \(id \d+\)\. Rename or merge them/,
    );
    // Still possible to insert a case variant: the index was not created.
    await fx.db.prisma.category.create({ data: { name: "DOGS" } });
    await fx.db.prisma.category.delete({ where: { name: "DOGS" } });
  });

  it("applies once the names are renamed, and the database refuses case duplicates from then on", async () => {
    await resolveMigration(fx.db, String(CASE_MIGRATION), "rolled-back", {
      paths: { migrationsDir: fx.all },
    });
    await fx.db.prisma.category.update({ where: { name: "Hamsters ux" }, data: { name: "Hamsters (old)" } });
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.all } });
    await expect(fx.db.prisma.category.create({ data: { name: "HAMSTERS ux" } })).rejects.toMatchObject({
      code: "P2002",
    });
    await fx.db.prisma.category.create({ data: { name: "Hamsters too" } });
  });
});
