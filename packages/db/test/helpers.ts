/** Test helpers: throwaway PostgreSQL databases, temp folders, and a copy of the migrations folder. */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { getConfig } from "@petstore/config";
import { afterAll, beforeAll } from "vitest";
import { type Database, openDatabase } from "../src/index.ts";
import { defaultMigrationPaths } from "../src/migrate/index.ts";
import {
  buildFolderOnce,
  copyFolder,
  createMigratedDatabase,
  createTemporaryDatabase,
  DEFAULT_ADMIN_URL,
  type TemporaryDatabase,
} from "../src/testing.ts";

const require = createRequire(import.meta.url);

/** URL of the server's `postgres` database: the configured server when DATABASE_URL is set, else local. */
function adminUrl(): string {
  const db = getConfig().database;
  const url = new URL(db.kind === "postgres" ? db.url : DEFAULT_ADMIN_URL);
  url.pathname = "/postgres";
  return url.toString();
}

/** Creates an empty database with a unique name on the tests' server. @returns its URL and a `drop()`. */
export function createTempPostgresDatabase(): Promise<TemporaryDatabase> {
  return createTemporaryDatabase("petstore_test", adminUrl());
}

/**
 * Creates a database with every migration applied (a copy of the migrated template) on the tests' server, for
 * tests that need the schema but are not about migrating. @returns its URL and a `drop()`.
 */
export function createMigratedPostgresDatabase(): Promise<TemporaryDatabase> {
  return createMigratedDatabase("petstore_test", adminUrl());
}

/** A fresh temp folder. @returns its path and a `remove()`. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `petstore-${prefix}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

let emptyPGliteTemplate: Promise<string> | undefined;

/**
 * The data folder of a just-initialised, empty PGlite, made once per PGlite version under the system's temporary
 * folder (built under a scratch name and renamed when complete, as `createMigratedPGliteDir` does).
 */
async function emptyPGliteTemplateDir(): Promise<string> {
  // The package's entry is dist/index.*; its package.json (not exported) is one folder up.
  const packageJson = path.join(path.dirname(require.resolve("@electric-sql/pglite")), "..", "package.json");
  const { version } = JSON.parse(await fs.promises.readFile(packageJson, "utf8")) as { version: string };
  const template = path.join(os.tmpdir(), `petstore-pglite-empty-${version}`);
  return buildFolderOnce(template, async (scratch) => (await PGlite.create(scratch)).close());
}

/**
 * A copy of an empty PGlite data folder in a new temp folder: opening it skips initdb, most of a PGlite start.
 * @returns its path (pass it as the PGlite `dir`) and a `remove()`.
 */
export async function createEmptyPGliteDir(): Promise<{ dir: string; remove(): void }> {
  emptyPGliteTemplate ??= emptyPGliteTemplateDir();
  emptyPGliteTemplate.catch(() => {
    emptyPGliteTemplate = undefined;
  });
  const template = await emptyPGliteTemplate;
  const copy = tempDir("pglite-empty");
  await copyFolder(template, copy.dir);
  return copy;
}

/** Folder names of the repository's migrations, in order. */
export function repoMigrationNames(): string[] {
  const dir = defaultMigrationPaths().migrationsDir;
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Copies the repository's migrations folder into `dir` and adds `extra` migrations (folder -> SQL). */
export function copyMigrations(dir: string, extra: Record<string, string> = {}): string {
  fs.cpSync(defaultMigrationPaths().migrationsDir, dir, { recursive: true });
  for (const [folder, sql] of Object.entries(extra)) writeMigrationFile(dir, folder, sql);
  return dir;
}

/** (Over)writes `<dir>/<folder>/migration.sql`. */
export function writeMigrationFile(dir: string, folder: string, sql: string): void {
  fs.mkdirSync(path.join(dir, folder), { recursive: true });
  fs.writeFileSync(path.join(dir, folder, "migration.sql"), sql);
}

/** What a migration's test works on: an empty database, and the migrations folder `all` and `before` it. */
export interface MigrationFixture {
  db: Database;
  /** Every migration of the repository. */
  all: string;
  /** The migrations before `migration` (it and the later ones removed). */
  before: string;
}

/**
 * Sets up a test of migration `migration` (a folder name) on `kind`: before all tests, a new empty database (on
 * PostgreSQL, a temporary one; on PGlite, a copy of an empty data folder) and the two migrations folders; after
 * them, everything removed.
 */
export function useMigrationFixture(
  kind: "postgres" | "pglite",
  migration: string | undefined,
): MigrationFixture {
  const tmp = tempDir("migration");
  const fixture = {
    all: path.join(tmp.dir, "all"),
    before: path.join(tmp.dir, "before"),
  } as MigrationFixture;
  let drop = async () => {};
  beforeAll(async () => {
    if (kind === "postgres") {
      const temp = await createTempPostgresDatabase();
      fixture.db = await openDatabase({ kind: "postgres", url: temp.url });
      drop = temp.drop;
    } else {
      const folder = await createEmptyPGliteDir();
      fixture.db = await openDatabase({ kind: "pglite", dir: folder.dir });
      drop = async () => folder.remove();
    }
    copyMigrations(fixture.all);
    copyMigrations(fixture.before);
    for (const name of repoMigrationNames().filter((n) => migration && n >= migration))
      fs.rmSync(path.join(fixture.before, name), { recursive: true });
  });
  afterAll(async () => {
    await fixture.db?.close();
    await drop();
    tmp.remove();
  });
  return fixture;
}
