/**
 * Test support: a throwaway PostgreSQL database per test run, created on the server the tests use
 * (`TEST_POSTGRES_URL`-style admin URL passed in; default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

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
export async function createTemporaryDatabase(
  prefix = "petstore_test",
  adminUrl = DEFAULT_ADMIN_URL,
): Promise<TemporaryDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
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
