/**
 * The one place that reads the environment (docs/contract.md section 5).
 *
 * `loadConfig(env)` parses a plain record of variables with zod and returns a typed, frozen `Config`;
 * `getConfig()` does so once for `process.env` and caches the result. A bad value throws `ConfigError`
 * whose message names the variable, so start-up stops with a clear line.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

const booleanFlag = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off", ""])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

const positiveInt = z.coerce.number().int().positive();

const url = (protocols: string[]) =>
  z.url().refine((v) => protocols.some((p) => v.startsWith(`${p}:`)), {
    message: `must start with ${protocols.map((p) => `${p}://`).join(" or ")}`,
  });

const originUrl = url(["http", "https"]).transform((v) => v.replace(/\/+$/, ""));

const envSchema = z
  .object({
    PORT: positiveInt.max(65535).default(3000),
    PETSTORE_ENV: z.enum(["production", "staging"]).default("staging"),
    DATABASE_URL: url(["postgres", "postgresql"]).optional(),
    PGLITE_DIR: z.string().min(1).optional(),
    PUBLIC_BASE_URL: originUrl.optional(),
    PRODUCTION_ORIGIN: originUrl.default("https://api.petstore.example"),
    STAGING_ORIGIN: originUrl.default("https://staging-api.petstore.example"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    REDIS_URL: url(["redis", "rediss"]).optional(),
    UPSTASH_REDIS_REST_URL: url(["https", "http"]).optional(),
    UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
    RATE_LIMIT_ENABLED: booleanFlag.default(true),
    RATE_LIMIT_PREFIX: z.string().min(1).default("petstore"),
    RATE_LIMIT_STORE_TIMEOUT_MS: positiveInt.default(1000),
    ANONYMOUS_PER_MINUTE: positiveInt.default(60),
    BAN_THRESHOLD: positiveInt.default(30),
    BAN_WINDOW_SECONDS: positiveInt.default(600),
    BAN_BASE_SECONDS: positiveInt.default(900),
    TRUST_PROXY: booleanFlag.default(false),
    SESSION_IDLE_HOURS: positiveInt.default(12),
    CURSOR_SECRET: z.string().min(32, { message: "must be at least 32 characters" }).optional(),
    METRICS_ENABLED: booleanFlag.default(true),
    METRICS_TOKEN: z.string().min(16, { message: "must be at least 16 characters" }).optional(),
    ANALYTICS_ENABLED: booleanFlag.default(true),
    ANALYTICS_RETENTION_DAYS: positiveInt.max(3650).default(90),
  })
  .superRefine((env, ctx) => {
    if (Boolean(env.UPSTASH_REDIS_REST_URL) !== Boolean(env.UPSTASH_REDIS_REST_TOKEN)) {
      ctx.addIssue({
        code: "custom",
        path: [env.UPSTASH_REDIS_REST_URL ? "UPSTASH_REDIS_REST_TOKEN" : "UPSTASH_REDIS_REST_URL"],
        message: "UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together",
      });
    }
  });

export type RateLimitStoreConfig =
  | { kind: "redis"; url: string }
  | { kind: "upstash"; url: string; token: string }
  | { kind: "memory" };

export type DatabaseConfig = { kind: "postgres"; url: string } | { kind: "pglite"; dir: string };

/** Validated configuration. Durations are in the unit their name says. */
export interface Config {
  port: number;
  environment: "production" | "staging";
  database: DatabaseConfig;
  /** Origin this deployment is reached at (no trailing slash); Link and Location headers are built from it. */
  publicBaseUrl: string;
  /** `{base_url}` of each deployment for the OpenAPI `servers` list: `<origin>/v1`. */
  servers: { production: string; staging: string };
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  rateLimit: {
    enabled: boolean;
    store: RateLimitStoreConfig;
    prefix: string;
    storeTimeoutMs: number;
    anonymousPerMinute: number;
    ban: { threshold: number; windowSeconds: number; baseSeconds: number };
  };
  trustProxy: boolean;
  sessionIdleHours: number;
  /**
   * Key that signs listPets cursors. Unset: a random key generated once and kept in the database, shared by
   * every instance on that database (docs/contract.md section 1, "Paging").
   */
  cursorSecret?: string;
  /**
   * GET /metrics (Prometheus text format): `enabled` false turns off both the endpoint (404) and the per-request
   * recording; with `token` set a scrape must send `Authorization: Bearer <token>`.
   */
  metrics: { enabled: boolean; token?: string };
  /**
   * Request analytics per key, hour, operation and outcome (docs/contract.md section 4): `enabled` false stops
   * counting (benchmarks only: usage figures then stay where they were); hourly rows older than
   * `retentionDays` are purged.
   */
  analytics: { enabled: boolean; retentionDays: number };
}

/** Raised when an environment variable is malformed; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid environment variable ${variable}: ${detail}`);
    this.name = "ConfigError";
  }
}

/**
 * Finds the monorepo root (the folder holding turbo.json) from `start` upwards.
 * Returns `start` itself when none is found.
 */
export function findRepoRoot(start: string = process.cwd()): string {
  let dir = path.resolve(/* turbopackIgnore: true */ start);
  for (;;) {
    if (fs.existsSync(path.join(dir, "turbo.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(/* turbopackIgnore: true */ start);
    dir = parent;
  }
}

/** PGlite folder: `memory://` kept as is, relative paths resolved against the repository root. */
function pgliteDir(root: string, value: string | undefined): string {
  if (value?.startsWith("memory://")) return value;
  return path.resolve(root, value ?? ".data/pglite");
}

/**
 * Parses `env` into a `Config`. Empty strings count as unset.
 * @throws ConfigError naming the first bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue?.path[0] ?? "environment"), issue?.message ?? "invalid");
  }
  const e = parsed.data;
  const root = findRepoRoot();
  const store: RateLimitStoreConfig = e.REDIS_URL
    ? { kind: "redis", url: e.REDIS_URL }
    : e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN
      ? { kind: "upstash", url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN }
      : { kind: "memory" };
  const database: DatabaseConfig = e.DATABASE_URL
    ? { kind: "postgres", url: e.DATABASE_URL }
    : { kind: "pglite", dir: pgliteDir(root, e.PGLITE_DIR) };
  const config: Config = {
    port: e.PORT,
    environment: e.PETSTORE_ENV,
    database,
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`,
    servers: { production: `${e.PRODUCTION_ORIGIN}/v1`, staging: `${e.STAGING_ORIGIN}/v1` },
    logLevel: e.LOG_LEVEL,
    rateLimit: {
      enabled: e.RATE_LIMIT_ENABLED,
      store,
      prefix: e.RATE_LIMIT_PREFIX,
      storeTimeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS,
      anonymousPerMinute: e.ANONYMOUS_PER_MINUTE,
      ban: {
        threshold: e.BAN_THRESHOLD,
        windowSeconds: e.BAN_WINDOW_SECONDS,
        baseSeconds: e.BAN_BASE_SECONDS,
      },
    },
    trustProxy: e.TRUST_PROXY,
    sessionIdleHours: e.SESSION_IDLE_HOURS,
    ...(e.CURSOR_SECRET ? { cursorSecret: e.CURSOR_SECRET } : {}),
    metrics: { enabled: e.METRICS_ENABLED, ...(e.METRICS_TOKEN ? { token: e.METRICS_TOKEN } : {}) },
    analytics: { enabled: e.ANALYTICS_ENABLED, retentionDays: e.ANALYTICS_RETENTION_DAYS },
  };
  return Object.freeze(config);
}

/**
 * True in a development build (`next dev`, `tsx server.ts --dev`): NODE_ENV as Next sets it. Bundlers replace
 * it at build time, so this is a property of the build, not a setting.
 */
export function isDevelopmentBuild(): boolean {
  return process.env.NODE_ENV === "development";
}

let cached: Config | undefined;

/** `loadConfig(process.env)`, parsed once per process. */
export function getConfig(): Config {
  cached ??= loadConfig(process.env);
  return cached;
}
