/**
 * The bench's options, read once and validated (zod): each from `--name=<value>` on the command line, else the
 * environment variable beside it, else the default. Flags (`--metrics`, `--analytics`, `--floods`) are on when given on
 * the command line or when their variable is `1`/`true`. Throws a ZodError naming the bad option.
 */
import { z } from "zod";

const positive = z.coerce.number().positive();
const flag = z
  .enum(["", "0", "1", "false", "true"])
  .default("")
  .transform((v) => v === "1" || v === "true");

const argument = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

/**
 * Node options of the bench's API-only instance: none, as docs/operations.md "Roles" recommends unless memory is
 * tighter than throughput (then `--max-semi-space-size=8 --max-old-space-size=96`; docs/performance.md).
 */
export const API_NODE_OPTIONS = "";

const Options = z.object({
  duration: positive.default(12),
  connections: positive.default(64),
  warmup: positive.default(2),
  rounds: positive.default(3),
  profileDir: z.string().min(1).optional(),
  metrics: flag,
  analytics: flag,
  floods: flag,
  redisUrl: z.string().min(1).default("redis://127.0.0.1:6379"),
  logLevel: z.string().min(1).default("info"),
  only: z.string().min(1).optional(),
  apiNodeOptions: z
    .string()
    .default(API_NODE_OPTIONS)
    .transform((v) => v.split(/\s+/).filter(Boolean)),
});

const env = process.env;
export const options = Options.parse({
  duration: argument("duration") ?? env.BENCH_DURATION,
  connections: argument("connections") ?? env.BENCH_CONNECTIONS,
  warmup: argument("warmup") ?? env.BENCH_WARMUP,
  rounds: argument("rounds") ?? env.BENCH_ROUNDS,
  profileDir: env.BENCH_PROFILE || undefined,
  metrics: process.argv.includes("--metrics") ? "1" : env.BENCH_METRICS,
  analytics: process.argv.includes("--analytics") ? "1" : env.BENCH_ANALYTICS,
  floods: process.argv.includes("--floods") ? "1" : env.BENCH_FLOODS,
  redisUrl: env.REDIS_URL || undefined,
  logLevel: env.BENCH_LOG_LEVEL || undefined,
  only: argument("only") ?? (env.BENCH_ONLY || undefined),
  apiNodeOptions: argument("api-node-options") ?? env.BENCH_API_NODE_OPTIONS,
});
