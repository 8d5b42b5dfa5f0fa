/**
 * Operator entry: `npm run db:migrate -- create <name> | deploy | status | resolve --rolled-back|--applied <name>`.
 * The database comes from `getConfig().database` (DATABASE_URL, else PGLITE_DIR). Exit codes: 0 done
 * (status: up to date), 1 failed (status: not up to date), 2 bad arguments or configuration.
 * Always exits explicitly: the WASM engine leaves a ~10 s timer behind.
 */
import { ConfigError, type DatabaseConfig, getConfig } from "@petstore/config";
import {
  createMigration,
  deployMigrations,
  MIGRATION_NAME,
  migrationStatus,
  resolveMigration,
} from "./index.ts";

const USAGE = `Usage: npm run db:migrate -- <command>
  create <name>               write prisma/migrations/<timestamp>_<name>/migration.sql for schema.prisma's changes
  deploy                      apply the pending migrations to the database
  status                      compare the database's migration history with prisma/migrations
  resolve --rolled-back <name> | --applied <name>
                              record how a failed migration was dealt with`;

class UsageError extends Error {}

type Command =
  | { kind: "create"; name: string }
  | { kind: "deploy" }
  | { kind: "status" }
  | { kind: "resolve"; name: string; outcome: "rolled-back" | "applied" };

/** Parses the CLI arguments. @throws UsageError with the reason. */
function parseArgs(args: string[]): Command {
  const [command, ...rest] = args;
  const noExtra = (n: number) => {
    if (rest.length > n) throw new UsageError(`Unexpected argument "${rest[n]}" for "${command}".`);
  };
  switch (command) {
    case "create": {
      const name = rest[0];
      if (!name) throw new UsageError("create needs a migration name, e.g. `create add_pet_tags`.");
      if (!MIGRATION_NAME.test(name)) {
        throw new UsageError(
          `Invalid migration name "${name}": letters, digits and _, starting with a letter.`,
        );
      }
      noExtra(1);
      return { kind: "create", name };
    }
    case "deploy":
    case "status":
      noExtra(0);
      return { kind: command };
    case "resolve": {
      const [flag, name] = rest;
      if ((flag !== "--rolled-back" && flag !== "--applied") || !name) {
        throw new UsageError("resolve needs --rolled-back <name> or --applied <name>.");
      }
      noExtra(2);
      return { kind: "resolve", name, outcome: flag === "--applied" ? "applied" : "rolled-back" };
    }
    case undefined:
      throw new UsageError("Missing command.");
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

/** "PostgreSQL host:port/db" or "PGlite <dir>", never a password. */
function describeTarget(db: DatabaseConfig): string {
  if (db.kind === "pglite") return `PGlite ${db.dir}`;
  try {
    const url = new URL(db.url);
    return `PostgreSQL ${url.host}${url.pathname}`;
  } catch {
    return "PostgreSQL";
  }
}

async function run(command: Command, db: DatabaseConfig): Promise<number> {
  const started = performance.now();
  const took = () => `(${((performance.now() - started) / 1000).toFixed(1)} s)`;
  switch (command.kind) {
    case "create": {
      const result = await createMigration(db, command.name);
      if (!result.created) {
        console.log(`${result.reason} Nothing written. ${took()}`);
        return 0;
      }
      console.log(`Created ${result.file} ${took()}`);
      return 0;
    }
    case "deploy": {
      console.log(`Deploying migrations to ${describeTarget(db)}`);
      const result = await deployMigrations(db);
      if (result.applied.length === 0)
        console.log(`No pending migrations (${result.total} already applied). ${took()}`);
      else console.log(`Applied ${result.applied.length}: ${result.applied.join(", ")} ${took()}`);
      return 0;
    }
    case "status": {
      const status = await migrationStatus(db);
      console.log(`${describeTarget(db)}: ${status.migrations.length} migration(s) in prisma/migrations`);
      for (const line of status.summary) console.log(`  ${line}`);
      return status.upToDate ? 0 : 1;
    }
    case "resolve": {
      await resolveMigration(db, command.name, command.outcome);
      console.log(`Marked ${command.name} as ${command.outcome}. ${took()}`);
      return 0;
    }
  }
}

async function main(): Promise<number> {
  let command: Command;
  let db: DatabaseConfig;
  try {
    command = parseArgs(process.argv.slice(2));
    db = getConfig().database;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  try {
    return await run(command, db);
  } catch (error) {
    const code = (error as { code?: string }).code;
    console.error(`Migration ${command.kind} failed${code ? ` (${code})` : ""}: ${(error as Error).message}`);
    if (code === "P3009") {
      console.error("Fix the database, then: npm run db:migrate -- resolve --rolled-back <migration name>");
    }
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
