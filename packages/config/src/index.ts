/**
 * The one place that reads the environment (docs/contract.md section 5).
 *
 * `loadConfig(env)` parses a plain record of variables with zod and returns a typed, frozen `Config`;
 * `getConfig()` does so once for `process.env` and caches the result. A bad value throws `ConfigError`
 * whose message names the variable, so start-up stops with a clear line.
 */
import { createPublicKey } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import proxyaddr from "proxy-addr";
import { z } from "zod";

const booleanFlag = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off", ""])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().nonnegative();

const url = (protocols: string[]) =>
  z.url().refine((v) => protocols.some((p) => v.startsWith(`${p}:`)), {
    message: `must start with ${protocols.map((p) => `${p}://`).join(" or ")}`,
  });

/**
 * An `http(s)` origin the service is reached at, normalised as a browser writes it (`https://api.example.com`; a
 * trailing slash dropped). A path, query, fragment or user name is refused: the service answers `/v1`, `/docs` and
 * `/admin` at the root of its host (the dashboard is built without a base path), so links built on a prefix would
 * point where it serves nothing.
 */
const originUrl = url(["http", "https"])
  .refine(
    (v) => {
      const parsed = new URL(v);
      return (
        /^\/*$/.test(parsed.pathname) &&
        !parsed.search &&
        !parsed.hash &&
        !parsed.username &&
        !v.includes("?") &&
        !v.includes("#")
      );
    },
    {
      message:
        "must be an origin such as https://api.petstore.example (scheme, host and port; no path, query or user)",
    },
  )
  .transform((v) => new URL(v).origin);

/** An origin exactly as a browser sends it in `Origin` (RFC 6454): scheme, host and port only. */
function isOrigin(value: string): boolean {
  try {
    const parsed = new URL(value);
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.origin === value;
  } catch {
    return false;
  }
}

/**
 * Which proxies in front of the service are trusted to report the client (TRUST_PROXY, the rule of the
 * `proxy-addr` package): `false`/`0`/`no`/`off`/empty, none (0 hops); `true`/`1`/`yes`/`on`, the one proxy in front;
 * a hop count `N`, the N proxies nearest the service; or a comma-separated list of addresses, CIDR ranges and the
 * names `loopback`, `linklocal` and `uniquelocal`, every proxy whose address is in it. A list is checked with
 * `proxy-addr` itself, so start-up fails on an entry the server could not compile.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): number | readonly string[] => {
    const flag = v.toLowerCase();
    if (["", "false", "no", "off"].includes(flag)) return 0;
    if (["true", "yes", "on"].includes(flag)) return 1;
    if (/^\d+$/.test(v)) return Number(v);
    const list = v.split(",").map((entry) => entry.trim());
    try {
      if (list.some((entry) => !entry)) throw new TypeError("empty entry");
      proxyaddr.compile(list);
      return Object.freeze(list);
    } catch {
      ctx.addIssue({
        code: "custom",
        message:
          "must be true, false, a hop count or a comma-separated list of proxy addresses or CIDR ranges (such as 10.0.0.0/8,loopback)",
      });
      return z.NEVER;
    }
  });

/** `*`, or a comma-separated list of origins (a trailing slash is dropped). */
const corsOrigins = z
  .string()
  .transform((v) =>
    v.trim() === "*"
      ? ("*" as const)
      : v
          .split(",")
          .map((o) => o.trim().replace(/\/+$/, ""))
          .filter((o) => o !== ""),
  )
  .refine((v) => v === "*" || (v.length > 0 && v.every(isOrigin)), {
    message:
      "must be * or a comma-separated list of origins such as https://tools.example.com (scheme, host and port; no path)",
  });

/**
 * Bounds of every wait on PostgreSQL (docs/operations.md "Timeouts and limits"), in milliseconds: `connectTimeoutMs` bounds
 * both opening a connection and waiting for a free one in the pool; `statementTimeoutMs` is the server's
 * `statement_timeout` and, with a little margin, the client's own read timeout (which catches a database that
 * stopped answering); `idleInTransactionTimeoutMs` is the server's `idle_in_transaction_session_timeout`.
 * `maxParallelWorkersPerGather` is the sessions' `max_parallel_workers_per_gather` (0: every statement runs on one
 * database core, so a dashboard count of a large table cannot take every core of the database host from /v1).
 */
export interface DatabasePoolConfig {
  size: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  maxParallelWorkersPerGather: number;
}

/** The pool bounds a PostgreSQL connection gets when its config names none (the variables' defaults). */
export const DEFAULT_DATABASE_POOL: DatabasePoolConfig = Object.freeze({
  size: 10,
  connectTimeoutMs: 2000,
  statementTimeoutMs: 3000,
  idleInTransactionTimeoutMs: 10_000,
  maxParallelWorkersPerGather: 0,
});
const DURATION_UNITS_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** `5s,5m,30m,2h` (units ms, s, m, h) -> milliseconds, in order; 1 to 20 steps, each at most 24 h. */
const durationList = z
  .string()
  .regex(/^\s*\d+(ms|s|m|h)(\s*,\s*\d+(ms|s|m|h)){0,19}\s*$/, {
    message: "must be 1 to 20 comma-separated durations such as 5s,5m,30m,2h (units ms, s, m, h)",
  })
  .transform((v) =>
    v.split(",").map((step) => {
      const [, amount, unit] = /^(\d+)(ms|s|m|h)$/.exec(step.trim()) as RegExpExecArray;
      return Number(amount) * DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS];
    }),
  )
  .refine((steps) => steps.every((ms) => ms <= 24 * 3_600_000), { message: "each step must be at most 24h" });

/**
 * Bounds of PASSWORD_HASH_COST, the scrypt cost of new password hashes as log2 N: 2^10 is cheap enough for test
 * suites that create many accounts, 2^15 the production default, 2^20 (1 GiB of memory per hash) the most a
 * dashboard instance may spend on one sign-in.
 */
export const PASSWORD_HASH_COST = Object.freeze({ min: 10, default: 15, max: 20 });

/** The retry schedule of docs/contract.md section 6: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = "5s,5m,30m,2h,5h,10h,10h";

/** GitHub's list of its secret-scanning keys, as `GET https://api.github.com/meta/public_keys/secret_scanning` answers. */
const secretScanningKeyList = z.object({
  public_keys: z
    .array(
      z.object({
        key_identifier: z.string().min(1).max(200),
        key: z.string().min(1).max(10_000),
        is_current: z.boolean().optional(),
      }),
    )
    .min(1),
});

/**
 * The keys in the file at `file` (SECRET_SCANNING_KEYS_FILE; relative to the repository root): GitHub's JSON list,
 * each key an ECDSA P-256 public key in PEM.
 * @throws ConfigError naming SECRET_SCANNING_KEYS_FILE when the file cannot be read or holds anything else.
 */
function readSecretScanningKeys(root: string, file: string): readonly SecretScanningKey[] {
  const fail = (detail: string) => new ConfigError("SECRET_SCANNING_KEYS_FILE", detail);
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(root, file), "utf8");
  } catch (error) {
    throw fail(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let list: z.infer<typeof secretScanningKeyList>;
  try {
    list = secretScanningKeyList.parse(JSON.parse(text));
  } catch {
    throw fail(`${file} must hold GitHub's list of keys: {"public_keys": [{"key_identifier", "key"}, ...]}`);
  }
  return Object.freeze(
    list.public_keys.map(({ key_identifier: id, key: pem }) => {
      let curve: string | undefined;
      try {
        curve = createPublicKey(pem).asymmetricKeyDetails?.namedCurve;
      } catch {
        throw fail(`the key ${id} in ${file} is not a PEM public key`);
      }
      if (curve !== "prime256v1") throw fail(`the key ${id} in ${file} is not an ECDSA P-256 key`);
      return Object.freeze({ id, pem });
    }),
  );
}

/** The OTEL_TRACES_SAMPLER values the server understands (the SDK specification's built-in samplers). */
export const TRACES_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

const envSchema = z
  .object({
    PORT: positiveInt.max(65535).default(3000),
    LISTEN_FDS: nonNegativeInt.optional(),
    LISTEN_PID: positiveInt.optional(),
    HOST: z
      .string()
      .trim()
      .optional()
      .transform((v) => v || undefined),
    PETSTORE_SERVE: z.enum(["all", "api", "dashboard"]).default("all"),
    DASHBOARD_NICE: nonNegativeInt.max(19).default(10),
    DASHBOARD_CONCURRENCY: positiveInt.max(1000).default(4),
    DASHBOARD_QUEUE: nonNegativeInt.max(10_000).default(16),
    DASHBOARD_ANONYMOUS_SHARE: z.coerce.number().gt(0).max(1000).default(0.1),
    DASHBOARD_ANONYMOUS_BURST: nonNegativeInt.max(1000).default(10),
    DASHBOARD_QUEUE_TIMEOUT_MS: positiveInt.max(600_000).default(10_000),
    PETSTORE_ENV: z.enum(["production", "staging"]).default("staging"),
    DATABASE_URL: url(["postgres", "postgresql"]).optional(),
    PGLITE_DIR: z.string().min(1).optional(),
    MIGRATE_ON_START: booleanFlag.default(false),
    DATABASE_POOL_SIZE: positiveInt.max(1000).default(DEFAULT_DATABASE_POOL.size),
    DATABASE_CONNECT_TIMEOUT_MS: positiveInt.default(DEFAULT_DATABASE_POOL.connectTimeoutMs),
    DATABASE_STATEMENT_TIMEOUT_MS: positiveInt.default(DEFAULT_DATABASE_POOL.statementTimeoutMs),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: positiveInt.default(
      DEFAULT_DATABASE_POOL.idleInTransactionTimeoutMs,
    ),
    DATABASE_MAX_PARALLEL_WORKERS_PER_GATHER: nonNegativeInt
      .max(64)
      .default(DEFAULT_DATABASE_POOL.maxParallelWorkersPerGather),
    PUBLIC_BASE_URL: originUrl.optional(),
    INSTANCE_ID: z
      .string()
      .regex(/^[\w.:-]{1,100}$/, {
        message: "must be 1 to 100 letters, digits, dots, dashes, colons or underscores",
      })
      .optional(),
    PRODUCTION_ORIGIN: originUrl.default("https://api.petstore.example"),
    STAGING_ORIGIN: originUrl.default("https://staging-api.petstore.example"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    REDIS_URL: url(["redis", "rediss"]).optional(),
    SMTP_URL: url(["smtp", "smtps"]).optional(),
    SMTP_FROM: z.string().trim().min(3).max(200).default("Pet Store <no-reply@petstore.example>"),
    SMTP_TIMEOUT_MS: positiveInt.max(120_000).default(10_000),
    // OpenTelemetry's own variables (opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
    OTEL_SDK_DISABLED: z
      .string()
      .transform((v) => v.trim().toLowerCase() === "true")
      .default(false),
    OTEL_EXPORTER_OTLP_ENDPOINT: url(["http", "https"]).optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(["http", "https"]).optional(),
    OTEL_SERVICE_NAME: z.string().trim().min(1).default("petstore"),
    OTEL_TRACES_SAMPLER: z.enum(TRACES_SAMPLERS).default("parentbased_always_on"),
    OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
    UPSTASH_REDIS_REST_URL: url(["https", "http"]).optional(),
    UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
    RATE_LIMIT_ENABLED: booleanFlag.default(true),
    RATE_LIMIT_PREFIX: z.string().min(1).default("petstore"),
    RATE_LIMIT_STORE_TIMEOUT_MS: positiveInt.default(1000),
    RATE_LIMIT_BREAKER_FAILURES: positiveInt.default(3),
    RATE_LIMIT_BREAKER_COOLDOWN_MS: positiveInt.default(5000),
    ANONYMOUS_PER_MINUTE: positiveInt.default(60),
    DASHBOARD_ANONYMOUS_PER_MINUTE: positiveInt.default(60),
    METRICS_SCRAPES_PER_MINUTE: positiveInt.default(60),
    ANONYMOUS_REFUSAL_DELAY_MS: nonNegativeInt.max(60_000).default(1000),
    BAN_THRESHOLD: positiveInt.default(30),
    BAN_WINDOW_SECONDS: positiveInt.default(600),
    BAN_BASE_SECONDS: positiveInt.default(900),
    TRUST_PROXY: trustProxy.default(0),
    CLIENT_IPV4_PREFIX: positiveInt.min(16).max(32).default(32),
    CLIENT_IPV6_PREFIX: positiveInt.min(32).max(128).default(64),
    CORS_ALLOWED_ORIGINS: corsOrigins.default("*"),
    SESSION_IDLE_HOURS: positiveInt.default(12),
    SESSION_MAX_DAYS: positiveInt.max(365).default(30),
    PASSWORD_HASH_COST: positiveInt
      .min(PASSWORD_HASH_COST.min)
      .max(PASSWORD_HASH_COST.max)
      .default(PASSWORD_HASH_COST.default),
    PASSWORD_HASH_CONCURRENCY: positiveInt.max(64).default(1),
    PASSWORD_HASH_QUEUE: nonNegativeInt.max(1000).default(8),
    CURSOR_SECRET: z.string().min(32, { message: "must be at least 32 characters" }).optional(),
    ORDER_HOLD_MINUTES: positiveInt.max(1440).default(30),
    METRICS_ENABLED: booleanFlag.default(true),
    METRICS_TOKEN: z.string().min(16, { message: "must be at least 16 characters" }).optional(),
    METRICS_PUBLIC: booleanFlag.default(false),
    ANALYTICS_ENABLED: booleanFlag.default(true),
    ANALYTICS_RETENTION_DAYS: positiveInt.max(3650).default(90),
    ANALYTICS_FLUSH_INTERVAL_MS: positiveInt.min(100).max(60_000).default(5000),
    SHUTDOWN_DRAIN_MS: nonNegativeInt.default(5000),
    SHUTDOWN_TIMEOUT_MS: positiveInt.default(25_000),
    HTTP_HEADERS_TIMEOUT_MS: positiveInt.default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: positiveInt.default(30_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt.default(65_000),
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: booleanFlag.default(false),
    WEBHOOKS_RETRY_SCHEDULE: durationList.default(durationList.parse(DEFAULT_WEBHOOK_RETRY_SCHEDULE)),
    WEBHOOKS_TIMEOUT_MS: positiveInt.max(120_000).default(15_000),
    WEBHOOKS_POLL_INTERVAL_MS: positiveInt.max(60_000).default(1_000),
    WEBHOOKS_CONCURRENCY: positiveInt.max(1_000).default(64),
    WEBHOOKS_DISABLE_AFTER_HOURS: positiveInt.max(24 * 365).default(120),
    SECRET_SCANNING_KEYS_FILE: z.string().trim().min(1).optional(),
    LEAKED_KEYS_ACTION: z.enum(["revoke", "flag"]).default("revoke"),
  })
  .superRefine((env, ctx) => {
    if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: "custom",
        path: ["HTTP_HEADERS_TIMEOUT_MS"],
        message: "must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)",
      });
    }
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

export type DatabaseConfig =
  | { kind: "postgres"; url: string; pool?: DatabasePoolConfig }
  | { kind: "pglite"; dir: string };

/** The statement bound of operator commands (ms): migrations that build indexes, bulk seeds, purges of a backlog. */
export const OPERATOR_STATEMENT_TIMEOUT_MS = 30 * 60_000;

/**
 * `database` as operator commands open it (the `petstore` command, the benches' seeding; docs/operations.md
 * "Timeouts and limits"): the same pool, with statements bounded by `OPERATOR_STATEMENT_TIMEOUT_MS` instead of
 * the request path's few seconds, so that a migration or a bulk seed on a large database is not cancelled.
 */
export function forOperatorCommands(database: DatabaseConfig): DatabaseConfig {
  if (database.kind !== "postgres") return database;
  const pool = database.pool ?? DEFAULT_DATABASE_POOL;
  return {
    ...database,
    pool: { ...pool, statementTimeoutMs: Math.max(pool.statementTimeoutMs, OPERATOR_STATEMENT_TIMEOUT_MS) },
  };
}

/**
 * Tracing as configured (docs/operations.md "Tracing"): where spans go (the OTLP/HTTP traces URL), the service's
 * name and the sampler (`ratio`: OTEL_TRACES_SAMPLER_ARG, default 1, for the `traceidratio` samplers).
 */
export interface TracingConfig {
  tracesUrl: string;
  serviceName: string;
  sampler: { name: (typeof TRACES_SAMPLERS)[number]; ratio: number };
}

/**
 * The OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT with
 * `v1/traces` appended (OTLP exporter specification, "Endpoint URLs for OTLP/HTTP").
 */
function tracesUrl(base: string | undefined, traces: string | undefined): string | undefined {
  if (traces) return traces;
  if (!base) return undefined;
  return `${base.endsWith("/") ? base : `${base}/`}v1/traces`;
}

/** One of GitHub's secret-scanning signing keys: its identifier and PEM. */
export interface SecretScanningKey {
  id: string;
  pem: string;
}

/** What one process serves (PETSTORE_SERVE; docs/operations.md "Roles"). */
export type ServeRole = "all" | "api" | "dashboard";

/** Validated configuration. Durations are in the unit their name says. */
export interface Config {
  port: number;
  /** Address the server binds (HOST: an IP address or host name); undefined: every interface. */
  host: string | undefined;
  /**
   * The listening socket a supervisor passed (socket activation, sd_listen_fds(3): LISTEN_FDS at least 1 and
   * LISTEN_PID this process): descriptor 3, the first passed; the server then serves it instead of binding PORT on
   * HOST, and its stop leaves the socket and the connections queued on it to the next instance. Undefined otherwise.
   */
  listenFd: number | undefined;
  /** `api`: /v1, probes and /metrics, without Next; `dashboard`: dashboard, /api/trpc, /docs and probes; `all`. */
  serve: ServeRole;
  /** Nice value (0-19) a `dashboard` instance lowers its main thread to, so API instances on its host win the CPU. */
  dashboardNice: number;
  /**
   * Dashboard requests (pages, /api/trpc, /docs; not Next's static files) an instance serves at once, in each of
   * two pools, one for clients without a session and one for signed-in staff (DASHBOARD_CONCURRENCY, 1 to 1000,
   * default 4), and requests that may wait for a place in each (DASHBOARD_QUEUE, 0 to 10,000, default 16);
   * beyond both, a 429 with Retry-After 1 at once. In the `all` role, the anonymous pool's places may also be
   * held at most `anonymousShare` of the time, summed over places (DASHBOARD_ANONYMOUS_SHARE, over 0 to 1000,
   * default 0.1; at or above the concurrency it never refuses), which bounds the event-loop share anonymous
   * dashboard work takes from /v1. The first `anonymousBurst` requests of a client address in a minute
   * (DASHBOARD_ANONYMOUS_BURST, 0 to 1000, default 10; 0: none) may draw on a reserve beyond the share, so that a
   * person opening a few pages is not refused while the share is used up. A request waits in a queue at most
   * `queueTimeoutMs` (DASHBOARD_QUEUE_TIMEOUT_MS, 1 to 600,000, default 10,000), then gets a 503 with Retry-After.
   * /v1 never waits.
   */
  dashboardAdmission: {
    concurrency: number;
    queue: number;
    anonymousShare: number;
    anonymousBurst: number;
    queueTimeoutMs: number;
  };
  environment: "production" | "staging";
  database: DatabaseConfig;
  /**
   * MIGRATE_ON_START (default false): the server applies pending migrations to PostgreSQL at start instead of
   * refusing to start (docs/operations.md "Migrations"). The embedded database is always migrated at start.
   */
  migrateOnStart: boolean;
  /** Origin this deployment is reached at (no trailing slash); Link and Location headers are built from it. */
  publicBaseUrl: string;
  /**
   * Where `publicBaseUrl` comes from: PUBLIC_BASE_URL (`environment`), the default for PORT (`default`), or, in a
   * `petstore` command without PUBLIC_BASE_URL, the origin a server of the deployment recorded in the database at
   * its start (`recorded`, set by core's openRuntime).
   */
  publicBaseUrlSource: "environment" | "recorded" | "default";
  /** INSTANCE_ID: this instance's name in its log lines (beside pid and hostname); undefined when unset. */
  instanceId: string | undefined;
  /** `{base_url}` of each deployment for the OpenAPI `servers` list: `<origin>/v1`. */
  servers: { production: string; staging: string };
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /**
   * Tracing (OpenTelemetry, OTLP/HTTP): set when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
   * is set and OTEL_SDK_DISABLED is not `true`; undefined otherwise, and then no tracing SDK is loaded.
   */
  tracing: TracingConfig | undefined;
  rateLimit: {
    enabled: boolean;
    store: RateLimitStoreConfig;
    prefix: string;
    storeTimeoutMs: number;
    /**
     * Circuit breaker around the store: after `failures` consecutive failures or timeouts, checks fail open at
     * once for `cooldownMs`, then one probe decides whether to close it again.
     */
    breaker: { failures: number; cooldownMs: number };
    anonymousPerMinute: number;
    /** Requests per minute per client address to /api/trpc and the sign-in page without a known session. */
    dashboardAnonymousPerMinute: number;
    /** GET /metrics requests per minute per client address (a scraper sends a few). */
    metricsScrapesPerMinute: number;
    /**
     * How long the 429 of an address over an anonymous budget is held before it is answered (ms; 0: at once),
     * so that a client calling on while refused is slowed to one request per connection per delay.
     */
    anonymousRefusalDelayMs: number;
    ban: { threshold: number; windowSeconds: number; baseSeconds: number };
  };
  /**
   * The proxies trusted to report the client in X-Forwarded-For, -Proto and -Host (TRUST_PROXY): a hop count (0:
   * none, the socket's address is the client) or a list of addresses, CIDR ranges and `proxy-addr` names.
   */
  trustProxy: number | readonly string[];
  /**
   * Prefix lengths (bits) that make one client in every budget kept per client: the anonymous budgets of the
   * API, the dashboard and /metrics, and the sign-in throttle (CLIENT_IPV4_PREFIX, 16 to 32, default 32;
   * CLIENT_IPV6_PREFIX, 32 to 128, default 64: a subscriber's network, RFC 6177).
   */
  clientPrefixes: { ipv4: number; ipv6: number };
  /**
   * Browser origins allowed to call /v1 (CORS; docs/operations.md "Browsers"): `*` (any, the default: keys are
   * bearer tokens, never cookies) or a list of origins, which narrows it.
   */
  cors: { allowedOrigins: "*" | readonly string[] };
  /** A dashboard session ends after this long without use (docs/contract.md section 4, "Sessions"). */
  sessionIdleHours: number;
  /** A dashboard session ends this long after sign-in, however much it is used. */
  sessionMaxDays: number;
  /**
   * scrypt cost of new password hashes as log2 N (PASSWORD_HASH_COST, 10 to 20, default 15). Each stored hash
   * keeps the cost it was made with, so changing it never breaks a sign-in.
   */
  passwordHashCost: number;
  /**
   * Password work of an instance (docs/contract.md section 4): `concurrency` hashes at once
   * (PASSWORD_HASH_CONCURRENCY, 1 to 64, default 1), and at most `queue` sign-ins waiting for one
   * (PASSWORD_HASH_QUEUE, 0 to 1000, default 8); a sign-in beyond both is refused at once (429, Retry-After 1),
   * so a flood of sign-ins cannot take the CPU or libuv's thread pool (4 threads) from the API.
   */
  passwordHashing: { concurrency: number; queue: number };
  /**
   * Key that signs listPets cursors. Unset: a random key generated once and kept in the database, shared by
   * every instance on that database (docs/contract.md section 1, "Paging").
   */
  cursorSecret?: string;
  /**
   * The store section (docs/contract.md section 1): how long an order holds its animal unless the order asks
   * otherwise (ORDER_HOLD_MINUTES, 1 to 1440, default 30).
   */
  orders: { holdMinutes: number };
  /**
   * GET /metrics (Prometheus text format): `enabled` false turns off both the endpoint (404) and the per-request
   * recording; with `token` set a scrape must send `Authorization: Bearer <token>`; without one, only clients on
   * loopback are served unless `public` (METRICS_PUBLIC) opens it to every address (docs/operations.md "Metrics").
   */
  metrics: { enabled: boolean; token?: string; public: boolean };
  /**
   * Request analytics per key, hour, operation and outcome (docs/contract.md section 4): `enabled` false stops
   * counting (benchmarks only: usage figures then stay where they were); hourly rows older than
   * `retentionDays` are purged; the counts kept in memory are written every `flushIntervalMs`.
   */
  analytics: { enabled: boolean; retentionDays: number; flushIntervalMs: number };
  /**
   * Clean stop on SIGTERM (docs/operations.md "Deploying"): /readyz answers 503 and the instance keeps serving for
   * `drainMs`, then stops accepting connections and waits up to `timeoutMs` for running requests.
   */
  shutdown: { drainMs: number; timeoutMs: number };
  /** node:http limits: time to receive the headers, the whole request, and the idle time of a kept-alive connection. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  /**
   * Webhook delivery (docs/contract.md section 6). `allowPrivateTargets` (development and tests only) also
   * accepts `http` and private or loopback addresses; `retryScheduleMs` holds the delays before each retry
   * (jittered); `timeoutMs` bounds one attempt; `pollIntervalMs` is how often an idle instance looks for due
   * deliveries; `concurrency` caps the attempts in flight per instance; an endpoint failing continuously for
   * `disableAfterHours` is disabled.
   */
  webhooks: {
    allowPrivateTargets: boolean;
    retryScheduleMs: number[];
    timeoutMs: number;
    pollIntervalMs: number;
    concurrency: number;
    disableAfterHours: number;
  };
  /**
   * Outgoing mail (invitations to consumer accounts, docs/contract.md section 7), when SMTP_URL is set: the
   * server's URL (`smtp://user:pass@host:587`, `smtps://` for implicit TLS), the From address, and the bound on
   * connecting, the greeting and each socket wait (ms).
   */
  mail?: { url: string; from: string; timeoutMs: number };
  /**
   * Leaked keys (docs/contract.md section 2, "Leaked keys"): `action` (LEAKED_KEYS_ACTION, `revoke` by default,
   * or `flag`) is what a report of a live key does to it, from GitHub or the dashboard; `githubKeys` are the keys
   * GitHub's reports must be signed with (SECRET_SCANNING_KEYS_FILE, read at start); empty: reports are not taken.
   */
  leakedKeys: { action: "revoke" | "flag"; githubKeys: readonly SecretScanningKey[] };
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
 * Raised when the environment is well formed but names something this process cannot use as it is: a database
 * whose migrations differ from the build's, or an embedded database folder another process holds. A ConfigError, so
 * start-up and the `petstore` command stop on it as on a malformed variable (exit code 2, this one line); the
 * message names the fix.
 */
export class EnvironmentStateError extends ConfigError {
  constructor(variable: string, message: string) {
    super(variable, message);
    this.message = message;
    this.name = "EnvironmentStateError";
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

/** The tracing part of the configuration (undefined: tracing off). */
function tracingOf(e: z.infer<typeof envSchema>): TracingConfig | undefined {
  const url = tracesUrl(e.OTEL_EXPORTER_OTLP_ENDPOINT, e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!url || e.OTEL_SDK_DISABLED) return undefined;
  return Object.freeze({
    tracesUrl: url,
    serviceName: e.OTEL_SERVICE_NAME,
    sampler: Object.freeze({ name: e.OTEL_TRACES_SAMPLER, ratio: e.OTEL_TRACES_SAMPLER_ARG ?? 1 }),
  });
}

/** What a configuration is loaded for: a process that serves, or an operator command (no server-only rules). */
export type ConfigPurpose = "serve" | "command";

/**
 * Parses `env` into a `Config`. Empty strings count as unset. `purpose` `command` (the `petstore` command) leaves
 * out the rules of a serving process: METRICS_TOKEN in production, so a deploy pipeline's `db migrate` needs none.
 * @throws ConfigError naming the first bad variable.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  options: { purpose?: ConfigPurpose } = {},
): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue?.path[0] ?? "environment"), issue?.message ?? "invalid");
  }
  const e = parsed.data;
  // docs/operations.md "Metrics": a production instance never exposes its metrics without a token.
  if (
    (options.purpose ?? "serve") === "serve" &&
    e.PETSTORE_ENV === "production" &&
    e.METRICS_ENABLED &&
    !e.METRICS_TOKEN
  )
    throw new ConfigError(
      "METRICS_TOKEN",
      "must be set when PETSTORE_ENV=production (or turn metrics off with METRICS_ENABLED=false)",
    );
  const root = findRepoRoot();
  const store: RateLimitStoreConfig = e.REDIS_URL
    ? { kind: "redis", url: e.REDIS_URL }
    : e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN
      ? { kind: "upstash", url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN }
      : { kind: "memory" };
  const database: DatabaseConfig = e.DATABASE_URL
    ? {
        kind: "postgres",
        url: e.DATABASE_URL,
        pool: {
          size: e.DATABASE_POOL_SIZE,
          connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
          statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
          idleInTransactionTimeoutMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
          maxParallelWorkersPerGather: e.DATABASE_MAX_PARALLEL_WORKERS_PER_GATHER,
        },
      }
    : { kind: "pglite", dir: pgliteDir(root, e.PGLITE_DIR) };
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    listenFd: (e.LISTEN_FDS ?? 0) >= 1 && e.LISTEN_PID === process.pid ? 3 : undefined,
    serve: e.PETSTORE_SERVE,
    dashboardNice: e.DASHBOARD_NICE,
    dashboardAdmission: {
      concurrency: e.DASHBOARD_CONCURRENCY,
      queue: e.DASHBOARD_QUEUE,
      anonymousShare: e.DASHBOARD_ANONYMOUS_SHARE,
      anonymousBurst: e.DASHBOARD_ANONYMOUS_BURST,
      queueTimeoutMs: e.DASHBOARD_QUEUE_TIMEOUT_MS,
    },
    environment: e.PETSTORE_ENV,
    database,
    migrateOnStart: e.MIGRATE_ON_START,
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`,
    publicBaseUrlSource: e.PUBLIC_BASE_URL ? "environment" : "default",
    instanceId: e.INSTANCE_ID,
    servers: { production: `${e.PRODUCTION_ORIGIN}/v1`, staging: `${e.STAGING_ORIGIN}/v1` },
    logLevel: e.LOG_LEVEL,
    tracing: tracingOf(e),
    rateLimit: {
      enabled: e.RATE_LIMIT_ENABLED,
      store,
      prefix: e.RATE_LIMIT_PREFIX,
      storeTimeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS,
      breaker: { failures: e.RATE_LIMIT_BREAKER_FAILURES, cooldownMs: e.RATE_LIMIT_BREAKER_COOLDOWN_MS },
      anonymousPerMinute: e.ANONYMOUS_PER_MINUTE,
      dashboardAnonymousPerMinute: e.DASHBOARD_ANONYMOUS_PER_MINUTE,
      metricsScrapesPerMinute: e.METRICS_SCRAPES_PER_MINUTE,
      anonymousRefusalDelayMs: e.ANONYMOUS_REFUSAL_DELAY_MS,
      ban: {
        threshold: e.BAN_THRESHOLD,
        windowSeconds: e.BAN_WINDOW_SECONDS,
        baseSeconds: e.BAN_BASE_SECONDS,
      },
    },
    trustProxy: e.TRUST_PROXY,
    clientPrefixes: { ipv4: e.CLIENT_IPV4_PREFIX, ipv6: e.CLIENT_IPV6_PREFIX },
    cors: {
      allowedOrigins: e.CORS_ALLOWED_ORIGINS === "*" ? "*" : Object.freeze([...e.CORS_ALLOWED_ORIGINS]),
    },
    sessionIdleHours: e.SESSION_IDLE_HOURS,
    sessionMaxDays: e.SESSION_MAX_DAYS,
    passwordHashCost: e.PASSWORD_HASH_COST,
    passwordHashing: { concurrency: e.PASSWORD_HASH_CONCURRENCY, queue: e.PASSWORD_HASH_QUEUE },
    ...(e.CURSOR_SECRET ? { cursorSecret: e.CURSOR_SECRET } : {}),
    orders: { holdMinutes: e.ORDER_HOLD_MINUTES },
    metrics: {
      enabled: e.METRICS_ENABLED,
      ...(e.METRICS_TOKEN ? { token: e.METRICS_TOKEN } : {}),
      public: e.METRICS_PUBLIC,
    },
    analytics: {
      enabled: e.ANALYTICS_ENABLED,
      retentionDays: e.ANALYTICS_RETENTION_DAYS,
      flushIntervalMs: e.ANALYTICS_FLUSH_INTERVAL_MS,
    },
    shutdown: { drainMs: e.SHUTDOWN_DRAIN_MS, timeoutMs: e.SHUTDOWN_TIMEOUT_MS },
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    ...(e.SMTP_URL ? { mail: { url: e.SMTP_URL, from: e.SMTP_FROM, timeoutMs: e.SMTP_TIMEOUT_MS } } : {}),
    leakedKeys: {
      action: e.LEAKED_KEYS_ACTION,
      githubKeys: e.SECRET_SCANNING_KEYS_FILE
        ? readSecretScanningKeys(root, e.SECRET_SCANNING_KEYS_FILE)
        : Object.freeze([]),
    },
    webhooks: {
      allowPrivateTargets: e.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
      retryScheduleMs: e.WEBHOOKS_RETRY_SCHEDULE,
      timeoutMs: e.WEBHOOKS_TIMEOUT_MS,
      pollIntervalMs: e.WEBHOOKS_POLL_INTERVAL_MS,
      concurrency: e.WEBHOOKS_CONCURRENCY,
      disableAfterHours: e.WEBHOOKS_DISABLE_AFTER_HOURS,
    },
  };
  return Object.freeze(config);
}

/**
 * True in a development build (Next in development mode: `npm run dev`, `tsx server.ts --dev`): NODE_ENV as
 * Next sets it. Bundlers replace it at build time, so this is a property of the build, not a setting.
 */
export function isDevelopmentBuild(): boolean {
  return process.env.NODE_ENV === "development";
}

/** Node's inspector flags (`--inspect`, `--inspect-brk`, `--inspect-wait`, `--inspect-port`, with a value or not). */
export const INSPECTOR_FLAG = /^--inspect(?:-brk|-wait|-port)?(?:=\S*)?$/;

/**
 * Whether NODE_OPTIONS asks for Node's inspector. Every Node process started with it opens the inspector, npm's own
 * first: under `npm start` the server then finds the port taken (docs/operations.md "Debugging").
 */
export function nodeOptionsInspect(env: Record<string, string | undefined> = process.env): boolean {
  return (env.NODE_OPTIONS ?? "").split(/\s+/).some((flag) => INSPECTOR_FLAG.test(flag));
}

/**
 * `env` for a child process of the server (the dashboard's Next process): NODE_OPTIONS without inspector flags, so
 * that the child does not try to open the inspector port its parent holds.
 */
export function childProcessEnvironment(
  env: Record<string, string | undefined> = process.env,
): Record<string, string | undefined> {
  if (!nodeOptionsInspect(env)) return env;
  const options = (env.NODE_OPTIONS ?? "")
    .split(/\s+/)
    .filter((flag) => flag && !INSPECTOR_FLAG.test(flag))
    .join(" ");
  return { ...env, NODE_OPTIONS: options };
}

let cached: Config | undefined;

/** `loadConfig(process.env)`, parsed once per process. */
export function getConfig(): Config {
  cached ??= loadConfig(process.env);
  return cached;
}
