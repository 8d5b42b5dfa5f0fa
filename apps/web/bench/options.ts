/**
 * The bench's options, read once and validated (zod): each from `--name=<value>` on the command line, else the
 * environment variable beside it, else the default. Flags (`--metrics`, `--analytics`, `--tracing`, `--floods`) are on when given on
 * the command line or when their variable is `1`/`true`. Throws a ZodError naming the bad option.
 */
import { z } from "zod";
import { API_ROLE } from "../test/instances/production-server.ts";
import { flag, readOptions } from "../test/support/options.ts";

export { flag, readOptions };

const positive = z.coerce.number().positive();

/**
 * Node options of the bench's API-only instance: those `npm run start:api` runs it with (docs/operations.md
 * "Roles"; docs/performance.md says why).
 */
export const API_NODE_OPTIONS = API_ROLE.nodeArgs.join(" ");

/** Environment of the bench's API-only instance beyond the bench's own: what `npm run start:api` sets. */
export const API_ENV = Object.entries(API_ROLE.env)
  .map(([name, value]) => `${name}=${value}`)
  .join(" ");

/** `NAME=value` pairs separated by spaces. */
const envPairs = z
  .string()
  .regex(/^\s*(\w+=\S*(\s+|$))*$/, { message: "must be NAME=value pairs separated by spaces" });
const pairsOf = (v: string) =>
  Object.fromEntries(
    v
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split("=", 2) as [string, string]),
  );

const Options = z.object({
  duration: positive.default(12),
  connections: positive.default(64),
  /** Connections of each many-key scenario, each measured apart (comma-separated). */
  manyConnections: z
    .string()
    .default("16,64")
    .transform((v) => v.split(",").map(Number))
    .pipe(z.array(z.number().int().positive()).min(1)),
  /** API keys of the many-key scenarios. */
  keys: positive.int().default(1000),
  /** Which scenarios: the many-key mix, the hot-key case, or both. */
  set: z.enum(["all", "many", "hot"]).default("all"),
  warmup: positive.default(2),
  rounds: positive.default(3),
  profileDir: z.string().min(1).optional(),
  /** A server bundle (e.g. a build of a change) run as the third server, in the API role, instead of `all`. */
  variant: z.string().min(1).optional(),
  metrics: flag,
  analytics: flag,
  /** The third server (API role) answers the many-key scenarios with keys of consumer accounts (4 per account). */
  accounts: flag,
  /** The third server (API role) answers the many-key scenarios with keys on a plan with a monthly quota. */
  quotas: flag,
  tracing: flag,
  floods: flag,
  addressFloods: flag,
  floodAddresses: positive.int().max(60_000).default(200),
  floodRate: positive.default(160),
  redisUrl: z.string().min(1).default("redis://127.0.0.1:6379"),
  logLevel: z.string().min(1).default("info"),
  only: z.string().min(1).optional(),
  apiNodeOptions: z
    .string()
    .default(API_NODE_OPTIONS)
    .transform((v) => v.split(/\s+/).filter(Boolean)),
  apiEnv: envPairs.default(API_ENV).transform(pairsOf),
  /** The `--variant` server's Node options and environment, when they differ from the API instance's. */
  variantNodeOptions: z
    .string()
    .optional()
    .transform((v) => v?.split(/\s+/).filter(Boolean)),
  variantEnv: envPairs.optional().transform((v) => (v === undefined ? undefined : pairsOf(v))),
  /** The Node binary of the `--variant` server (another Node version), when it differs from the bench's. */
  variantNode: z.string().min(1).optional(),
  /** Environment of the address floods' all-in-one instance beyond the bench's own. */
  allEnv: envPairs.default("").transform(pairsOf),
  /** bench:webhooks: creates per second, and seconds, of the commit-to-delivery run. */
  webhookRate: positive.default(100),
  webhookSeconds: positive.default(30),
});

export const options = readOptions(Options, {
  duration: { arg: "duration", env: "BENCH_DURATION" },
  connections: { arg: "connections", env: "BENCH_CONNECTIONS" },
  manyConnections: { arg: "many-connections", env: "BENCH_MANY_CONNECTIONS" },
  keys: { arg: "keys", env: "BENCH_KEYS" },
  set: { arg: "set", env: "BENCH_SET" },
  warmup: { arg: "warmup", env: "BENCH_WARMUP" },
  rounds: { arg: "rounds", env: "BENCH_ROUNDS" },
  profileDir: { env: "BENCH_PROFILE" },
  variant: { arg: "variant", env: "BENCH_VARIANT" },
  metrics: { arg: "metrics", env: "BENCH_METRICS", flag: true },
  analytics: { arg: "analytics", env: "BENCH_ANALYTICS", flag: true },
  accounts: { arg: "accounts", env: "BENCH_ACCOUNTS", flag: true },
  quotas: { arg: "quotas", env: "BENCH_QUOTAS", flag: true },
  tracing: { arg: "tracing", env: "BENCH_TRACING", flag: true },
  floods: { arg: "floods", env: "BENCH_FLOODS", flag: true },
  addressFloods: { arg: "address-floods", env: "BENCH_ADDRESS_FLOODS", flag: true },
  floodAddresses: { arg: "flood-addresses", env: "BENCH_FLOOD_ADDRESSES" },
  floodRate: { arg: "flood-rate", env: "BENCH_FLOOD_RATE" },
  redisUrl: { env: "REDIS_URL" },
  logLevel: { env: "BENCH_LOG_LEVEL" },
  only: { arg: "only", env: "BENCH_ONLY" },
  apiNodeOptions: { arg: "api-node-options", env: "BENCH_API_NODE_OPTIONS" },
  apiEnv: { arg: "api-env", env: "BENCH_API_ENV" },
  variantNodeOptions: { arg: "variant-node-options", env: "BENCH_VARIANT_NODE_OPTIONS" },
  variantEnv: { arg: "variant-env", env: "BENCH_VARIANT_ENV" },
  variantNode: { arg: "variant-node", env: "BENCH_VARIANT_NODE" },
  allEnv: { arg: "all-env", env: "BENCH_ALL_ENV" },
  webhookRate: { arg: "webhook-rate", env: "BENCH_WEBHOOK_RATE" },
  webhookSeconds: { arg: "webhook-seconds", env: "BENCH_WEBHOOK_SECONDS" },
});
