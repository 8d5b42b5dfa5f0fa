/**
 * `useProductionApp(s)`: production servers (`node dist/server.js`) on hardening databases for a describe block;
 * the HTTP calls (`trpc`, `signIn`, `rest`) are support/http-calls.ts's, re-exported.
 */
import { afterAll, beforeAll } from "vitest";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  startProductionServer,
} from "../instances/production-server.ts";
import { freePort, PASSWORD } from "../support/common.ts";
import { GENEROUS, openTestDatabase, type TestDatabaseOptions } from "../support/database.ts";
import type { Target } from "../support/http-calls.ts";

export {
  batchCodes,
  type CallOptions,
  type Reply,
  rest,
  signIn,
  type Target,
  trpc,
  trpcBatch,
  trpcCode,
} from "../support/http-calls.ts";
export { PASSWORD };

export const ADMIN = "admin@hardening.test";
export const STAFF = "staff@hardening.test";

/** A running production server (`baseUrl`, a generous enterprise `key`) on its database. */
export interface App extends Target {
  server: ProductionServer;
  db: PreparedDatabase;
}

/** The hardening accounts (an admin, a staff user) and key of every hardening app's database. */
export const HARDENING_DATABASE = {
  prefix: "petstore_hardening",
  users: [
    { email: ADMIN, role: "admin" },
    { email: STAFF, role: "staff" },
  ],
  key: { ...GENEROUS, name: "hardening" },
} as const satisfies TestDatabaseOptions;

/**
 * A migrated, seeded PostgreSQL database with the hardening accounts and key, and a production server with `env`
 * on it. @throws when the database cannot be made or the server does not start (nothing is left behind).
 */
export async function startProductionApp(env: Record<string, string> = {}): Promise<App> {
  const db = await openTestDatabase(HARDENING_DATABASE);
  try {
    const port = await freePort();
    const server = await startProductionServer(port, {
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TRUST_PROXY: "1",
      // Cold pages in a row, parallel sign-ins: the dashboard pools have a test of their own.
      DASHBOARD_CONCURRENCY: "1000",
      DASHBOARD_ANONYMOUS_SHARE: "1000",
      ...env,
    });
    return { server, db, baseUrl: server.baseUrl, key: db.key };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

/** Starts a production server with `env` before the block's tests, stops it after them. */
export function useProductionApp(env: Record<string, string> = {}): App {
  return useProductionApps({ app: env }).app;
}

/**
 * Starts one production server per entry of `envs`, side by side, before the block's tests (each on a database
 * of its own), and stops them after. @returns the apps by name, filled in once they have started.
 */
export function useProductionApps<Name extends string>(
  envs: Record<Name, Record<string, string>>,
): Record<Name, App> {
  const apps = Object.fromEntries(Object.keys(envs).map((name) => [name, {}])) as Record<Name, App>;
  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    const names = Object.keys(envs) as Name[];
    const started = await Promise.allSettled(names.map((name) => startProductionApp(envs[name])));
    started.forEach((result, i) => {
      if (result.status === "fulfilled") Object.assign(apps[names[i] as Name], result.value);
    });
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }, 900_000);
  afterAll(async () => {
    const stop = async (app: Partial<App>) => {
      await app.server?.stop();
      await app.db?.drop();
    };
    await Promise.all(Object.values<Partial<App>>(apps).map(stop));
  });
  return apps;
}
