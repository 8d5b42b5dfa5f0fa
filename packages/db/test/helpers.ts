/** Test helpers: throwaway PostgreSQL databases, temp folders, and a copy of the migrations folder. */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { getConfig } from "@petstore/config";
import pg from "pg";
import { defaultMigrationPaths } from "../src/migrate/index.ts";

/** URL of the server's `postgres` database: the configured server when DATABASE_URL is set, else local. */
function adminUrl(): string {
  const db = getConfig().database;
  const url = new URL(db.kind === "postgres" ? db.url : "postgresql://postgres@127.0.0.1:5432/postgres");
  url.pathname = "/postgres";
  return url.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database with a unique name. @returns its URL and a `drop()` that removes it. */
export async function createTempPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `petstore_test_${crypto.randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

/** A fresh temp folder. @returns its path and a `remove()`. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `petstore-${prefix}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
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
