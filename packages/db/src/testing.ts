/**
 * Test support: a throwaway PostgreSQL database per test run, created on the server the tests use
 * (`TEST_POSTGRES_URL`-style admin URL passed in; default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

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
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
