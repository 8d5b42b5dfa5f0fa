/**
 * The `petstore` operator command (docs/contract.md section 5) as a function: `main(argv, io)` runs one command
 * and resolves to its exit code. main.ts runs it with the process's arguments, environment and streams.
 * Exit codes: 0 success, 1 failure (message on stderr), 2 bad arguments (with usage). With `--json`, a
 * failure prints the API's Error body on stdout instead (see failure.ts).
 */
import os from "node:os";
import { type Config, forOperatorCommands, loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { migrate, prepareDatabase } from "@petstore/core/migrate";
import { accountsCommand } from "./commands/accounts.ts";
import { keysCommand } from "./commands/keys.ts";
import { ordersCommand } from "./commands/orders.ts";
import { plansCommand } from "./commands/plans.ts";
import { purgeCommand } from "./commands/purge.ts";
import { seedCommand } from "./commands/seed.ts";
import { usageCommand } from "./commands/usage.ts";
import { usersCommand } from "./commands/users.ts";
import { webhooksCommand } from "./commands/webhooks.ts";
import { reportFailure } from "./failure.ts";
import { type CliIo, type Output, outputOf, textSink } from "./io.ts";
import { UsageError, usage } from "./usage.ts";

export type { CliInput, CliIo } from "./io.ts";

/** Opens a runtime for one command and closes it after (every command gets its own, as a process would). */
export type WithRuntime = <T>(fn: (rt: Runtime) => Promise<T>) => Promise<T>;

/**
 * The configuration of `env` for an operator command (none of a server's own requirements, such as METRICS_TOKEN
 * in production), with the database bounded as for operator commands (statements may run long).
 * @throws ConfigError naming a malformed variable.
 */
const operatorConfig = (env: CliIo["env"]): Config => {
  const config = loadConfig(env, { purpose: "command" });
  return { ...config, database: forOperatorCommands(config.database) };
};

/**
 * `withRuntime` over `io`: the database is prepared as the server prepares it on start (docs/operations.md
 * "Migrations"): the embedded database is migrated, and a database whose migrations differ from this build's is
 * refused (exit code 2, naming `<command> db migrate`), never written on a schema the command was not built for.
 * Without PUBLIC_BASE_URL, links are built on the origin a server of the deployment recorded.
 */
function runtimeOpener(io: CliIo, command: string): WithRuntime {
  return async (fn) => {
    const config = operatorConfig(io.env);
    const rt = await openRuntime({
      config,
      logger: createLogger("error", textSink(io.stderr)),
      prepare: (db) => prepareDatabase(db, { migrateOnStart: false, log: () => {}, command }),
      publicOrigin: "recorded",
    });
    try {
      return await fn(rt);
    } finally {
      await rt.close();
    }
  };
}

async function run(argv: string[], io: CliIo, out: Output): Promise<void> {
  const [group, ...args] = argv;
  const actor = `cli:${os.userInfo().username}`;
  const withRuntime = runtimeOpener(io, out.command);
  switch (group) {
    case "db": {
      const [sub, ...rest] = args;
      if (sub === "purge") return withRuntime((rt) => purgeCommand(rt, rest, out));
      if (sub === "seed" && rest.length) return seedCommand(withRuntime, rest, out);
      if (rest.length) throw new UsageError(`Unexpected argument: ${rest[0]}`);
      if (sub === "migrate") {
        const { applied } = await migrate(operatorConfig(io.env).database);
        await withRuntime(async () => undefined); // makes sure the plan rows exist
        return out.print(
          applied.length
            ? `Applied ${applied.length} migration(s): ${applied.join(", ")}`
            : "The database is up to date.",
        );
      }
      if (sub === "seed") {
        return withRuntime(async (rt) => {
          const result = await rt.seed();
          out.print(`Seeded: ${JSON.stringify(result)}`);
        });
      }
      throw new UsageError(sub ? `Unknown db command: ${sub}` : "db needs a command: migrate, seed, purge");
    }
    case "accounts":
      return withRuntime((rt) => accountsCommand(rt, args, actor, out));
    case "keys":
      return withRuntime((rt) => keysCommand(rt, args, actor, out));
    case "orders":
      return withRuntime((rt) => ordersCommand(rt, args, actor, out));
    case "plans":
      return withRuntime((rt) => plansCommand(rt, args, out));
    case "usage":
      return withRuntime((rt) => usageCommand(rt, args, out));
    case "users":
      return withRuntime((rt) => usersCommand(rt, args, actor, out));
    case "webhooks":
      return withRuntime((rt) => webhooksCommand(rt, args, actor, out));
    case undefined:
      throw new UsageError("No command given.");
    case "help":
    case "--help":
    case "-h":
      io.stdout(usage(out.command));
      return;
    default:
      throw new UsageError(`Unknown command: ${group}`);
  }
}

/**
 * Runs the command `argv` (the arguments after `petstore`) with the configuration of `io.env`, writing to
 * `io.stdout`/`io.stderr`. Every runtime it opens is closed before it resolves. Never rejects: a failure is
 * reported as the exit code says (failure.ts).
 * @returns the exit code: 0 done, 1 failed (or `webhooks test` not delivered), 2 bad arguments or environment.
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const out = outputOf(io);
  try {
    await run(argv, io, out);
    return out.exitCode;
  } catch (error) {
    return reportFailure(error, argv.includes("--json"), io);
  }
}
