/**
 * Argument handling shared by the commands: `UsageError` (exit code 2 with the usage text) and a thin
 * wrapper over node:util `parseArgs` in strict mode.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { ErrorDetail } from "@petstore/contracts";
import type { z } from "zod";

/** The usage text, naming the command as the operator runs it (`npm run petstore --`, `node cli.js`). */
export const usage = (command: string) => `Usage: ${command} <command>

  db migrate                              apply pending database migrations
  db seed                                 add plans, categories and demo animals (idempotent)
  db seed --scale [--json]                fill a new, empty PostgreSQL database with the scale data set
                                          (1,000,000 animals, 5,000 keys, ~2.1M usage rows, 200,000 audit
                                          entries) to measure the dashboard; a few minutes
  db purge [--json]                       delete expired idempotency records and sessions, old sign-in
                                          failures and usage older than 90 days (the server does it every 10 min)
  accounts create --name N --plan free|pro|business|enterprise --owner-email E [--json]
                                          create a consumer account; prints its owner's invitation link
                                          once (valid 72 h, single use)
  accounts list [--json]                  accounts with plan, state, live keys, members, requests today
  accounts suspend|resume <id> [--json]   every key of the account answers 401 (or works again) within 5 s
  keys create --name N --plan free|pro|business|enterprise
              [--per-minute N --per-day N] [--expires-in 30d]
              [--scopes pets:read,pets:write,orders:read,orders:write] [--json]
                                          issue an API key; prints the secret once. Scopes: pets:read
                                          (list and fetch animals), pets:write (add and change animals),
                                          orders:read, orders:write (its orders); default all
  keys list [--json]                      list keys with state, plan and bans
  keys revoke <id|prefix>                 revoke a key (effective within 5 s everywhere)
  keys roll <id|prefix> [--grace 24h] [--json]
                                          issue a replacement (same plan, limits and scopes); the old key
                                          works for the grace period
  keys scopes <id|prefix> --scopes pets:read[,pets:write,...] [--json]
                                          replace a key's scopes (effective within 5 s everywhere)
  keys unban <id|prefix>                  lift a temporary rate-limit ban
  orders list [--status placed|completed|cancelled|expired] [--account ID] [--pet ID] [--json]
                                          the newest 100 orders matching, with animal, account and hold
  orders complete|cancel <id> [--json]    complete a placed order (the animal sold) or cancel it (the animal
                                          available again)
  plans list [--json]                     show the rate limits and monthly quota of each plan
  usage export --month YYYY-MM [--account ID] [--format csv|json]
                                          usage for billing: requests per account, operation and outcome in
                                          the UTC month (every account without --account); a month is final
                                          an hour after it ends
  users create --email E --name N --role staff|admin [--password-stdin]
                                          create a dashboard user (password read from stdin)
  webhooks create --url U --events pet.created,pet.updated,... [--description D] [--json]
                                          register a webhook endpoint; prints its signing secret once
  webhooks list [--json]                  endpoints with their events, state and why they were disabled
  webhooks enable|disable|delete <id>     switch deliveries to an endpoint on or off, or delete it
  webhooks rotate <id> [--json]           new signing secret (printed once); the old one signs for 24 h too
  webhooks test <id> [--type T] [--json]  send a test message now: webhook.test, or an example of event type T
                                          (exit code 1 when not delivered)
  webhooks replay <message id> [--endpoint <id>]
  webhooks replay --endpoint <id> --since T [--until T] [--failed]
                                          send messages again with their webhook-id; T is a time
                                          (2026-11-20T08:00:00Z) or a time ago (24h, 7d)

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
