/**
 * Test support: throwaway PostgreSQL databases on the server the tests use (admin URL passed in; default
 * postgresql://postgres@127.0.0.1:5432/postgres), empty or already migrated. A migrated one is a copy of a
 * template database that is migrated once per version of `prisma/migrations` (`CREATE DATABASE ... TEMPLATE`),
 * so a test pays for a file copy, not for the schema engine.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { deployMigrations } from "./migrate/deploy.ts";
import { defaultMigrationPaths, readMigrationsList } from "./migrate/files.ts";

export const DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

/** Runs `work` on a connection to the server's maintenance database `adminUrl`, closed afterwards. */
async function withAdmin<T>(adminUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

export interface TemporaryDatabase {
  /** Connection string of the new, empty database. */
  url: string;
  name: string;
  /** Drops the database (terminating leftover connections). */
  drop(): Promise<void>;
}

/** Creates an empty database named `<prefix>_<random>`. */
export function createTemporaryDatabase(
  prefix = "petstore_test",
  adminUrl = DEFAULT_ADMIN_URL,
): Promise<TemporaryDatabase> {
  return createDatabaseFrom(undefined, prefix, adminUrl);
}

/**
 * Creates a database named `<prefix>_<random>` with every migration of `prisma/migrations` applied (plans
 * are not seeded: `openRuntime` does that). Open it without the `migrate` prepare hook.
 * @throws MigrationError when the migrations do not apply; the server's error otherwise.
 */
export async function createMigratedDatabase(
  prefix = "petstore_test",
  adminUrl = DEFAULT_ADMIN_URL,
): Promise<TemporaryDatabase> {
  return createDatabaseFrom(await migratedTemplate(adminUrl), prefix, adminUrl);
}

/** A database one release behind: every migration but the latest applied. */
export interface DatabaseBehind extends TemporaryDatabase {
  /** The name of the migration it lacks. */
  latest: string;
}

/**
 * Creates a database named `<prefix>_<random>` holding every migration of `prisma/migrations` but the latest, as
 * the release before this one left it (for the start-up and CLI checks of pending migrations).
 * @throws MigrationError when the migrations do not apply; the server's error otherwise.
 */
export async function createDatabaseBehind(
  prefix = "petstore_behind",
  adminUrl = DEFAULT_ADMIN_URL,
): Promise<DatabaseBehind> {
  const all = defaultMigrationPaths().migrationsDir;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-migrations-behind-"));
  try {
    const migrationsDir = path.join(folder, "migrations");
    fs.cpSync(all, migrationsDir, { recursive: true });
    const latest = fs
      .readdirSync(migrationsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
      .at(-1) as string;
    fs.rmSync(path.join(migrationsDir, latest), { recursive: true });
    const db = await createTemporaryDatabase(prefix, adminUrl);
    await deployMigrations({ kind: "postgres", url: db.url }, { paths: { migrationsDir } });
    return { ...db, latest };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

const templates = new Map<string, Promise<string>>();

/** Templates of other migration versions kept when one is made: what a few checkouts at once need. */
const KEPT_TEMPLATES = 4;

/**
 * The name of the migrated template database for the current migrations (`petstore_template_<hash>`), created
 * when missing. Test processes running at once serialise on an advisory lock, so one of them migrates and
 * the others find it; templates of other migration versions are dropped then, except the newest
 * `KEPT_TEMPLATES`.
 */
function migratedTemplate(adminUrl: string): Promise<string> {
  let template = templates.get(adminUrl);
  if (!template) {
    template = createTemplate(adminUrl);
    templates.set(adminUrl, template);
    template.catch(() => templates.delete(adminUrl));
  }
  return template;
}

/**
 * A short hash of the migrations folder's content (not its location: checkouts of the same migrations share one
 * template, rather than dropping each other's as stale): templates are made again when a migration changes.
 */
async function migrationsVersion(): Promise<string> {
  const { baseDir: _location, ...content } = await readMigrationsList(defaultMigrationPaths().migrationsDir);
  return createHash("sha256").update(JSON.stringify(content)).digest("hex").slice(0, 16);
}

async function createTemplate(adminUrl: string): Promise<string> {
  const name = `petstore_template_${await migrationsVersion()}`;
  return withAdmin(adminUrl, async (admin) => {
    await admin.query("SELECT pg_advisory_lock(hashtext('petstore_template'))");
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (found.rowCount !== 0) return name;
      // Checkouts of other branches may share this server and still use theirs: only the oldest beyond the
      // newest few go (database oids grow with creation).
      const stale = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE 'petstore_template_%' AND datname NOT LIKE '%_building'
         ORDER BY oid DESC OFFSET ${KEPT_TEMPLATES}`,
      );
      for (const { datname } of stale.rows)
        await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      // Built under a scratch name and renamed when complete, so a crash never leaves a half-migrated template.
      const scratch = `${name}_building`;
      await admin.query(`DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${scratch}"`);
      await deployMigrations({ kind: "postgres", url: urlOf(adminUrl, scratch) });
      await admin.query(`ALTER DATABASE "${scratch}" RENAME TO "${name}"`);
      return name;
    } finally {
      await admin.query("SELECT pg_advisory_unlock(hashtext('petstore_template'))");
    }
  });
}

function urlOf(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function createDatabaseFrom(
  template: string | undefined,
  prefix: string,
  adminUrl: string,
): Promise<TemporaryDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  const from = template ? ` TEMPLATE "${template}"` : "";
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE "${name}"${from}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** A database found or created by name (`openNamedDatabase`). */
export interface NamedDatabase {
  url: string;
  name: string;
  /** True when this call created it (it was missing). */
  created: boolean;
  /** Drops the database (terminating leftover connections). */
  drop(): Promise<void>;
}

/**
 * The database `name` on the server of `adminUrl`, created (empty) when missing; for benchmarks that keep a
 * large data set between runs.
 * @throws Error when `name` is not a plain lower-case identifier, or the server's error.
 */
export async function openNamedDatabase(name: string, adminUrl = DEFAULT_ADMIN_URL): Promise<NamedDatabase> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`database name "${name}": use lower-case letters, digits and _ only`);
  const created = await withAdmin(adminUrl, async (admin) => {
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount !== 0) return false;
    await admin.query(`CREATE DATABASE "${name}"`);
    return true;
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    created,
    drop: async () => {
      await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** An embedded PGlite data folder made for a test (`createMigratedPGliteDir`). */
export interface TemporaryPGliteDir {
  /** Absolute path: pass it as `PGLITE_DIR`. */
  dir: string;
  /** Deletes the folder (close the database first). */
  remove(): Promise<void>;
}

let pgliteTemplate: Promise<string> | undefined;

/**
 * A fresh PGlite data folder with every migration applied: a copy of a template folder that is made once per
 * version of `prisma/migrations` under the system's temporary folder (PGlite's start on an existing folder skips
 * its initdb, so this is also faster than `memory://`). Open it without the `migrate` prepare hook.
 * @throws MigrationError when the migrations do not apply.
 */
export async function createMigratedPGliteDir(prefix = "petstore_pglite"): Promise<TemporaryPGliteDir> {
  pgliteTemplate ??= createPGliteTemplate();
  pgliteTemplate.catch(() => {
    pgliteTemplate = undefined;
  });
  const template = await pgliteTemplate;
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
  await copyFolder(template, dir);
  return { dir, remove: () => fs.promises.rm(dir, { recursive: true, force: true }) };
}

/**
 * Copies the contents of folder `from` into the existing folder `to`. A data folder holds about a thousand files:
 * the system's `cp` copies them for about a fifth of the CPU time `fs.promises.cp` takes, and outside the event loop;
 * where there is no `cp`, `fs.promises.cp` does it.
 * @throws when neither can copy.
 */
export async function copyFolder(from: string, to: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) =>
      execFile("cp", ["-R", "-p", `${from}/.`, to], (error) => (error ? reject(error) : resolve())),
    );
  } catch {
    await fs.promises.cp(from, to, { recursive: true, force: true });
  }
}

async function createPGliteTemplate(): Promise<string> {
  const template = path.join(os.tmpdir(), `petstore-pglite-template-${await migrationsVersion()}`);
  return buildFolderOnce(template, (scratch) => deployMigrations({ kind: "pglite", dir: scratch }));
}

/**
 * The folder `target`, built by `build` into a scratch folder and renamed to `target` when complete, unless it
 * exists already: a crash never leaves a half-built folder, and of two processes building at once, the second
 * rename fails and that process uses the first one's folder.
 * @returns `target`.
 * @throws what `build` throws.
 */
export async function buildFolderOnce(
  target: string,
  build: (scratch: string) => Promise<unknown>,
): Promise<string> {
  if (fs.existsSync(target)) return target;
  const scratch = await fs.promises.mkdtemp(`${target}-building-`);
  await build(scratch);
  try {
    await fs.promises.rename(scratch, target);
  } catch (error) {
    if (!fs.existsSync(target)) throw error;
    await fs.promises.rm(scratch, { recursive: true, force: true });
  }
  return target;
}
