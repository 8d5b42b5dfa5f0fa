/**
 * Migrations on the WASM schema engine, on an empty PostgreSQL database and an empty in-memory PGlite:
 * deploy, status, the migrations-vs-schema diff, seeding, atomic failure handling, and PGlite persistence.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase, seedDatabase } from "../src/index.ts";
import {
  createMigration,
  deployMigrations,
  diffMigrationsToSchema,
  MigrationError,
  type MigrationTarget,
  migrationStatus,
  resolveMigration,
} from "../src/migrate/index.ts";
import { createMigratedPGliteDir } from "../src/testing.ts";
import {
  copyMigrations,
  createTempPostgresDatabase,
  repoMigrationNames,
  tempDir,
  writeMigrationFile,
} from "./helpers.ts";

const MODEL_TABLES = [
  "Account",
  "ApiKey",
  "AuditLog",
  "Brownout",
  "Category",
  "DeploymentSetting",
  "IdempotencyRecord",
  "Invitation",
  "Order",
  "Pet",
  "PetStatusCount",
  "Plan",
  "RequestLogEntry",
  "RequestLogTally",
  "ServerSecret",
  "Session",
  "SignInThrottle",
  "UsageAlert",
  "UsageDay",
  "UsageHour",
  "UsageHourTotal",
  "User",
  "WebhookAttempt",
  "WebhookDelivery",
  "WebhookEndpoint",
  "WebhookEvent",
];

interface Harness {
  /** What the migration functions get. */
  target: MigrationTarget;
  /** An open client on the same database, for assertions. */
  db: Database;
  cleanup(): Promise<void>;
}

const harnesses: Array<[string, () => Promise<Harness>]> = [
  [
    "PostgreSQL (config target)",
    async () => {
      const temp = await createTempPostgresDatabase();
      const config = { kind: "postgres" as const, url: temp.url };
      const db = await openDatabase(config);
      return {
        target: config,
        db,
        cleanup: async () => {
          await db.close();
          await temp.drop();
        },
      };
    },
  ],
  [
    "in-memory PGlite (open Database target)",
    async () => {
      const db = await openDatabase({ kind: "pglite", dir: "memory://" });
      return { target: db, db, cleanup: () => db.close() };
    },
  ],
];

async function publicTables(db: Database): Promise<string[]> {
  const rows = await db.prisma.$queryRaw<Array<{ name: string }>>`
    SELECT tablename::text AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`;
  return rows.map((r) => r.name);
}

async function migrationRows(db: Database) {
  return db.prisma.$queryRaw<Array<{ name: string; finished: boolean; rolledBack: boolean }>>`
    SELECT migration_name AS name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS "rolledBack"
    FROM _prisma_migrations ORDER BY started_at, migration_name`;
}

async function countRows(db: Database) {
  return {
    plans: await db.prisma.plan.count(),
    categories: await db.prisma.category.count(),
    pets: await db.prisma.pet.count(),
  };
}

describe.each(harnesses)("migrations on %s", (_label, setup) => {
  let h: Harness;
  const names = repoMigrationNames();

  beforeAll(async () => {
    h = await setup();
  });
  afterAll(async () => {
    await h?.cleanup();
  });

  it("has at least the init migration in the repository", () => {
    expect(names.length).toBeGreaterThan(0);
    expect(names[0]).toMatch(/^\d{14}_init$/);
  });

  it("reports every migration pending on an empty database", async () => {
    const status = await migrationStatus(h.target);
    expect(status.upToDate).toBe(false);
    expect(status.hasMigrationsTable).toBe(false);
    expect(status.pending).toEqual(names);
    expect(await publicTables(h.db)).toEqual([]);
  });

  it("deploy applies all migrations", async () => {
    const result = await deployMigrations(h.target);
    expect(result).toEqual({ applied: names, total: names.length });
    expect(await publicTables(h.db)).toEqual([...MODEL_TABLES, "_prisma_migrations"].sort());
    const rows = await migrationRows(h.db);
    expect(rows).toEqual(names.map((name) => ({ name, finished: true, rolledBack: false })));
  });

  it("the migrations give exactly the schema schema.prisma describes", async () => {
    expect(await diffMigrationsToSchema(h.target)).toBe("");
  });

  it("a second deploy is a no-op", async () => {
    const before = await migrationRows(h.db);
    expect(await deployMigrations(h.target)).toEqual({ applied: [], total: names.length });
    expect(await migrationRows(h.db)).toEqual(before);
  });

  it("status is up to date after deploy", async () => {
    const status = await migrationStatus(h.target);
    expect(status).toMatchObject({ upToDate: true, pending: [], failed: [], edited: [], unknownApplied: [] });
    expect(status.migrations).toEqual(names);
  });

  it("seeding is idempotent", async () => {
    const first = await seedDatabase(h.db.prisma);
    expect(first).toEqual({ plans: 4, categories: 6, pets: 36, petsCreated: 36 });
    const counts = await countRows(h.db);
    const second = await seedDatabase(h.db.prisma);
    expect(second).toEqual({ plans: 4, categories: 6, pets: 36, petsCreated: 0 });
    expect(await countRows(h.db)).toEqual(counts);

    const plans = await h.db.prisma.plan.findMany({ orderBy: { name: "asc" } });
    expect(plans.map((p) => [p.name, p.perMinute, p.perDay])).toEqual([
      ["free", 60, 1000],
      ["pro", 300, 10000],
      ["business", 1000, 100000],
      ["enterprise", null, null],
    ]);
    const byStatus = await h.db.prisma.pet.groupBy({ by: ["status"], _count: true });
    expect(byStatus.map((g) => g.status).sort()).toEqual(["available", "pending", "sold", null].sort());
    const perCategory = await h.db.prisma.pet.groupBy({ by: ["categoryId"], _count: true });
    expect(perCategory).toHaveLength(6);
  });

  it("a failing migration changes nothing, is not recorded as applied, and can be resolved", async () => {
    const tmp = tempDir("failing");
    try {
      const broken = "29991231000000_broken";
      const migrationsDir = copyMigrations(tmp.dir, {
        [broken]: `CREATE TABLE "Broken" ("id" INTEGER);\nINSERT INTO "Category" ("name") VALUES ('half;applied');\nSELECT 1/0;\n`,
      });
      const options = { paths: { migrationsDir } };

      const failure = await deployMigrations(h.target, options).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(MigrationError);
      expect((failure as Error).message).toMatch(/division by zero/);
      expect(await publicTables(h.db)).not.toContain("Broken");
      expect(await h.db.prisma.category.count({ where: { name: "half;applied" } })).toBe(0);
      const rows = await migrationRows(h.db);
      expect(rows.find((r) => r.name === broken)).toEqual({
        name: broken,
        finished: false,
        rolledBack: false,
      });

      const status = await migrationStatus(h.target, options);
      expect(status.upToDate).toBe(false);
      expect(status.failed).toEqual([broken]);

      // Deploy refuses to run past a failed migration until it is resolved.
      await expect(deployMigrations(h.target, options)).rejects.toMatchObject({ code: "P3009" });

      // Fixed script: a `$$` body and a `;` inside a literal must reach the server intact.
      await resolveMigration(h.target, broken, "rolled-back", options);
      writeMigrationFile(
        migrationsDir,
        broken,
        `DO $$ BEGIN CREATE TABLE "Fixed" ("id" INTEGER); PERFORM 1; END $$;\nINSERT INTO "Category" ("name") VALUES ('semi;colon');\n`,
      );
      expect(await deployMigrations(h.target, options)).toEqual({
        applied: [broken],
        total: names.length + 1,
      });
      expect(await publicTables(h.db)).toContain("Fixed");
      expect(await h.db.prisma.category.count({ where: { name: "semi;colon" } })).toBe(1);
      expect(await migrationStatus(h.target, options)).toMatchObject({ upToDate: true, failed: [] });
    } finally {
      tmp.remove();
    }
  });
});

describe("createMigration", () => {
  // A PGlite folder config: diffs must not even open it (a running app may hold it).
  let unopened: ReturnType<typeof tempDir>;
  let target: MigrationTarget;
  beforeAll(() => {
    unopened = tempDir("unopened");
    target = { kind: "pglite", dir: path.join(unopened.dir, "never-created") };
  });
  afterAll(() => unopened?.remove());

  it("writes nothing when the migrations already match schema.prisma", async () => {
    const tmp = tempDir("create-noop");
    try {
      copyMigrations(tmp.dir);
      const before = fs.readdirSync(tmp.dir).sort();
      const result = await createMigration(target, "noop", { paths: { migrationsDir: tmp.dir } });
      expect(result.created).toBe(false);
      expect(fs.readdirSync(tmp.dir).sort()).toEqual(before);
    } finally {
      tmp.remove();
    }
  });

  it("writes a complete first migration and the lockfile into an empty folder", async () => {
    const tmp = tempDir("create-init");
    try {
      const options = { paths: { migrationsDir: tmp.dir } };
      const result = await createMigration(target, "init", options);
      if (!result.created) throw new Error(`expected a migration, got: ${result.reason}`);
      expect(result.name).toMatch(/^\d{14}_init$/);
      expect(result.sql).toMatch(/CREATE TABLE "Pet"/);
      expect(fs.readFileSync(result.file, "utf8")).toBe(result.sql);
      expect(fs.readFileSync(path.join(tmp.dir, "migration_lock.toml"), "utf8")).toMatch(
        /^provider = "postgresql"$/m,
      );
      // The migration written is complete: the next one would be empty.
      expect((await createMigration(target, "again", options)).created).toBe(false);
    } finally {
      tmp.remove();
    }
  });

  it("rejects invalid names", async () => {
    await expect(createMigration(target, "bad name!")).rejects.toBeInstanceOf(MigrationError);
  });

  it("never opened the PGlite folder", () => {
    expect(fs.existsSync((target as { dir: string }).dir)).toBe(false);
  });
});

describe("PGlite folder across restarts", () => {
  // The folder is a copy of the run's migrated template, which `deployMigrations` built through a folder config
  // (opening and closing the folder itself), as `npm start` does on first use.
  let folder: Awaited<ReturnType<typeof createMigratedPGliteDir>>;
  beforeAll(async () => {
    folder = await createMigratedPGliteDir("restart");
  });
  afterAll(() => folder?.remove());

  it("keeps migrated schema and data after close and reopen", async () => {
    const config = { kind: "pglite" as const, dir: folder.dir };
    const first = await openDatabase(config);
    expect((await migrationRows(first)).map((r) => r.name)).toEqual(repoMigrationNames());
    const category = await first.prisma.category.create({ data: { name: "restart-test" } });
    const pet = await first.prisma.pet.create({
      data: { name: "Persisto", categoryId: category.id, status: "available" },
    });
    await first.close();

    const second = await openDatabase(config);
    try {
      const found = await second.prisma.pet.findUnique({
        where: { id: pet.id },
        include: { category: true },
      });
      expect(found).toMatchObject({
        name: "Persisto",
        status: "available",
        category: { name: "restart-test" },
      });
      // ... and check the history through the open Database (the folder is not opened twice).
      expect((await migrationStatus(second)).upToDate).toBe(true);
      expect((await deployMigrations(second)).applied).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
