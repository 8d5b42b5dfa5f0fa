#!/usr/bin/env -S npx tsx
/**
 * The `petstore` operator command (docs/contract.md section 5), run as `npm run petstore -- <command>`.
 * Exit codes: 0 success, 1 failure (message on stderr), 2 bad arguments (with usage). With `--json`, a
 * failure prints the API's Error body on stdout instead (see failure.ts).
 */
import os from "node:os";
import { type Config, forOperatorCommands, getConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { migrate } from "@petstore/core/migrate";
import { keysCommand } from "./commands/keys.ts";
import { plansCommand } from "./commands/plans.ts";
import { purgeCommand } from "./commands/purge.ts";
import { seedCommand } from "./commands/seed.ts";
import { usersCommand } from "./commands/users.ts";
import { webhooksCommand } from "./commands/webhooks.ts";
import { reportFailure } from "./failure.ts";
import { USAGE, UsageError } from "./usage.ts";

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The configuration, with the database bounded as for operator commands (statements may run long). */
const operatorConfig = (): Config => {
  const config = getConfig();
  return { ...config, database: forOperatorCommands(config.database) };
};

/** Opens the runtime (migrating the embedded database first, as the app does on start), runs `fn`, closes. */
async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const config = operatorConfig();
  const rt = await openRuntime({
    config,
    logger: createLogger("error", process.stderr),
    prepare: config.database.kind === "pglite" ? migrate : undefined,
  });
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

async function run(argv: string[]): Promise<void> {
  const [group, ...args] = argv;
  const actor = `cli:${os.userInfo().username}`;
  switch (group) {
    case "db": {
      const [sub, ...rest] = args;
      if (sub === "purge") return withRuntime((rt) => purgeCommand(rt, rest, print));
      if (sub === "seed" && rest.length) return seedCommand(withRuntime, rest, print);
      if (rest.length) throw new UsageError(`Unexpected argument: ${rest[0]}`);
      if (sub === "migrate") {
        const { applied } = await migrate(operatorConfig().database);
        await withRuntime(async () => undefined); // makes sure the plan rows exist
        return print(
          applied.length
            ? `Applied ${applied.length} migration(s): ${applied.join(", ")}`
            : "The database is up to date.",
        );
      }
      if (sub === "seed") {
        return withRuntime(async (rt) => {
          const result = await rt.seed();
          print(`Seeded: ${JSON.stringify(result)}`);
        });
      }
      throw new UsageError(sub ? `Unknown db command: ${sub}` : "db needs a command: migrate, seed, purge");
    }
    case "keys":
      return withRuntime((rt) => keysCommand(rt, args, actor, print));
    case "plans":
      return withRuntime((rt) => plansCommand(rt, args, print));
    case "users":
      return withRuntime((rt) => usersCommand(rt, args, actor, print));
    case "webhooks":
      return withRuntime((rt) => webhooksCommand(rt, args, actor, print));
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      if (group === undefined) throw new UsageError("No command given.");
      return;
    default:
      throw new UsageError(`Unknown command: ${group}`);
  }
}

const argv = process.argv.slice(2);
run(argv).then(
  // A command may set a failing exit code of its own (`webhooks test` when the message was not delivered).
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => process.exit(reportFailure(error, argv.includes("--json"))),
);
