/**
 * Argument handling shared by the commands: `UsageError` (exit code 2 with the usage text) and a thin
 * wrapper over node:util `parseArgs` in strict mode.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { ErrorDetail } from "@petstore/contracts";
import type { z } from "zod";

export const USAGE = `Usage: npm run petstore -- <command>

  db migrate                              apply pending database migrations
  db seed                                 add plans, categories and demo animals (idempotent)
  db purge [--json]                       delete expired idempotency records and sessions, old sign-in
                                          failures and usage older than 90 days (the server does it every 10 min)
  keys create --name N --plan free|pro|business|enterprise
              [--per-minute N --per-day N] [--expires-in 30d] [--json]
                                          issue an API key; prints the secret once
  keys list [--json]                      list keys with state, plan and bans
  keys revoke <id|prefix>                 revoke a key (effective within 5 s everywhere)
  keys roll <id|prefix> [--grace 24h] [--json]
                                          issue a replacement; the old key works for the grace period
  keys unban <id|prefix>                  lift a temporary rate-limit ban
  plans list [--json]                     show the rate limits of each plan
  users create --email E --name N --role staff|admin [--password-stdin]
                                          create a dashboard user (password read from stdin)

With --json, a failure prints the API's Error body {"code","message","status"[,"details"]} on stdout.
`;

/**
 * Bad command-line input: printed with the usage text, exit code 2. `details` names the offending option
 * when a value broke its schema (reported as `validation_failed`; otherwise `invalid_request`).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/** `parseArgs` in strict mode; unknown options and missing values become `UsageError`. */
export function parseOptions<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  positionals = 0,
) {
  try {
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: positionals > 0 });
    if (parsed.positionals.length > positionals)
      throw new UsageError(`Unexpected argument: ${parsed.positionals[positionals]}`);
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

/**
 * Parses `value` with `schema`, turning a failure into a UsageError naming the option: `option` itself, or
 * for an object schema the property that failed as `--kebab-case` (`names` overrides, e.g. the password).
 */
export function parseValue<S extends z.ZodType>(
  schema: S,
  value: unknown,
  option: string,
  names: Record<string, string> = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const message = issue?.message ?? "invalid value";
    const property = issue?.path[0];
    const name =
      typeof property === "string"
        ? (names[property] ?? `--${property.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`)
        : option;
    throw new UsageError(`Invalid ${name}: ${message}`, [{ path: name, message }]);
  }
  return result.data;
}
