/**
 * What a process checks before it uses a database: that it holds exactly the build's migrations (on PostgreSQL,
 * read from `_prisma_migrations`), and that an embedded database folder is open in one place at a time.
 */
import { ConfigError } from "@petstore/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../src/index.ts";
import { checkMigrations, DatabaseUnreachableError, deployMigrations } from "../src/migrate/index.ts";
import { createMigratedPGliteDir, type TemporaryDatabase, type TemporaryPGliteDir } from "../src/testing.ts";
import { createMigratedPostgresDatabase, createTempPostgresDatabase, repoMigrationNames } from "./helpers.ts";

/** The error `promise` rejects with (fails the test when it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail("expected a rejection"),
    (error: Error) => error,
  );
}

describe("checkMigrations on PostgreSQL", () => {
  let temp: TemporaryDatabase;
  let db: Database;
  const latest = repoMigrationNames().at(-1) as string;

  beforeAll(async () => {
    temp = await createMigratedPostgresDatabase();
    db = await openDatabase({ kind: "postgres", url: temp.url });
  });
  afterAll(async () => {
    await db?.close();
    await temp?.drop();
  });

  it("accepts a database holding exactly the build's migrations", async () => {
    await expect(checkMigrations(db)).resolves.toBeUndefined();
  });

  it("refuses a database missing the latest migration, naming it and `npm run petstore -- db migrate` (exit code 2)", async () => {
    await db.prisma
      .$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = ${latest}`;
    try {
      const error = await rejectionOf(checkMigrations(db));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toContain(latest);
      expect(error.message).toContain("`npm run petstore -- db migrate`");
      expect(error.message).toContain("MIGRATE_ON_START=true");
      expect(error.message).not.toContain("\n");
    } finally {
      await db.prisma
        .$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = ${latest}`;
    }
  });

  it("refuses a database migrated by a newer release", async () => {
    await db.prisma.$executeRaw`
      INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, applied_steps_count)
      VALUES ('future', 'x', '29991231000000_from_a_newer_release', now(), 1)`;
    try {
      const error = await rejectionOf(checkMigrations(db));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toContain("29991231000000_from_a_newer_release");
      expect(error.message).toContain("newer release");
    } finally {
      await db.prisma.$executeRaw`DELETE FROM _prisma_migrations WHERE id = 'future'`;
    }
  });

  it("refuses a database with a failed migration, naming resolve", async () => {
    await db.prisma.$executeRaw`
      INSERT INTO _prisma_migrations (id, checksum, migration_name, applied_steps_count)
      VALUES ('failed', 'x', ${latest}, 0)`;
    try {
      const error = await rejectionOf(checkMigrations(db));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toContain("failed migration");
      expect(error.message).toContain("resolve --rolled-back");
    } finally {
      await db.prisma.$executeRaw`DELETE FROM _prisma_migrations WHERE id = 'failed'`;
    }
  });

  it("says an empty database is empty, in one line", async () => {
    const empty = await createTempPostgresDatabase();
    const emptyDb = await openDatabase({ kind: "postgres", url: empty.url });
    try {
      const error = await rejectionOf(checkMigrations(emptyDb));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toMatch(/^The database is empty: run `npm run petstore -- db migrate`/);
      expect(error.message).not.toContain("\n");
    } finally {
      await emptyDb.close();
      await empty.drop();
    }
  });

  it("says an unreachable database cannot be reached, in one line", async () => {
    const unreachable = await openDatabase({
      kind: "postgres",
      url: "postgresql://postgres@127.0.0.1:1/none",
      pool: {
        size: 1,
        connectTimeoutMs: 500,
        statementTimeoutMs: 500,
        idleInTransactionTimeoutMs: 1000,
        maxParallelWorkersPerGather: 0,
      },
    });
    try {
      const error = await rejectionOf(checkMigrations(unreachable));
      expect(error).toBeInstanceOf(DatabaseUnreachableError);
      expect(error.message).toMatch(
        /^The database cannot be reached to check its migrations: Can.t reach database server at 127.0.0.1:1$/,
      );
      expect(error.message).not.toContain("\n");
    } finally {
      await unreachable.close();
    }
  });
});

describe("the embedded database folder", () => {
  let folder: TemporaryPGliteDir;
  beforeAll(async () => {
    folder = await createMigratedPGliteDir();
  });
  afterAll(() => folder?.remove());

  it("is refused to a second opener while open, with a ConfigError naming the folder, and free again once closed", async () => {
    const config = { kind: "pglite" as const, dir: folder.dir };
    const first = await openDatabase(config);
    try {
      await checkMigrations(first);
      const second = await rejectionOf(openDatabase(config));
      expect(second).toBeInstanceOf(ConfigError);
      expect(second.message).toContain(folder.dir);
      expect(second.message).toContain("open in another process");
      // The migration runner opens a folder the same way.
      await expect(deployMigrations(config)).rejects.toThrow(/open in another process/);
    } finally {
      await first.close();
    }
    const again = await openDatabase(config);
    await again.close();
  });
});
