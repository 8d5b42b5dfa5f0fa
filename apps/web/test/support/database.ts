/**
 * The web suites' one test database: a fresh migrated PostgreSQL database or PGlite folder (copies of the migrated
 * templates), a runtime on it, and the reference data, users and key a suite asks for (docs/testing.md).
 */
import { loadConfig } from "@petstore/config";
import { type Clock, createLogger, openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase, createMigratedPGliteDir } from "@petstore/core/testing";
import { PASSWORD } from "./common.ts";

export type DatabaseKind = "postgres" | "pglite";

export interface TestDatabaseOptions {
  /** The name prefix of the database (PostgreSQL) or folder (PGlite). */
  prefix: string;
  kind?: DatabaseKind;
  /** Configuration of the runtime on top of LOG_LEVEL=silent and cheap hashes (PASSWORD_HASH_COST=10). */
  env?: Record<string, string>;
  clock?: Clock;
  /** The reference data (`rt.seed()`: plans, categories, demo animals); default true. */
  seed?: boolean;
  /** Users created with `PASSWORD` (name: the role unless given). */
  users?: readonly { email: string; role: "admin" | "staff"; name?: string }[];
  /** An enterprise key with these limits, named `name` (default "test"); none unless asked for. */
  key?: { perMinute: number; perDay: number; name?: string };
  /** The runtime's logger (default: silent). */
  logger?: ReturnType<typeof createLogger>;
}

export interface TestDatabase {
  /** The PostgreSQL URL ("" on PGlite). */
  url: string;
  rt: Runtime;
  /** The users asked for, in order. */
  users: { id: string; email: string }[];
  /** The key asked for ("" without). */
  key: string;
  /** Closes the runtime and removes the database; runs once. */
  drop(): Promise<void>;
}

/** The generous limits of the keys most suites call with. */
export const GENEROUS = { perMinute: 100_000, perDay: 1_000_000 };

/**
 * Makes the database `options` describe and opens a runtime on it.
 * @throws when it cannot be made or seeded (nothing is left behind).
 */
export async function openTestDatabase(options: TestDatabaseOptions): Promise<TestDatabase> {
  const kind = options.kind ?? "postgres";
  const pg = kind === "postgres" ? await createMigratedDatabase(options.prefix) : undefined;
  const lite = pg ? undefined : await createMigratedPGliteDir(options.prefix);
  const remove = async () => void (await Promise.all([pg?.drop(), lite?.remove()]));
  const where = pg ? { DATABASE_URL: pg.url } : { PGLITE_DIR: lite?.dir ?? "" };
  let rt: Runtime | undefined;
  try {
    const config = loadConfig({ LOG_LEVEL: "silent", PASSWORD_HASH_COST: "10", ...where, ...options.env });
    rt = await openRuntime({
      config,
      logger: options.logger ?? createLogger("silent"),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    if (options.seed ?? true) await rt.seed();
    const users = [];
    for (const { email, role, name = role } of options.users ?? [])
      users.push(await rt.users.create({ email, name, role, password: PASSWORD }, "test"));
    const key = options.key
      ? (await rt.apiKeys.create({ name: "test", ...options.key, plan: "enterprise" }, "test")).key
      : "";
    const opened = rt;
    let dropped = false;
    return {
      url: pg?.url ?? "",
      rt: opened,
      users: users.map(({ id, email }) => ({ id, email })),
      key,
      async drop() {
        if (dropped) return;
        dropped = true;
        await opened.close();
        await remove();
      },
    };
  } catch (error) {
    await rt?.close();
    await remove();
    throw error;
  }
}
