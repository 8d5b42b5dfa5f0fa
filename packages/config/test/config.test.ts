import { describe, expect, it } from "vitest";
import { ConfigError, forOperatorCommands, loadConfig, OPERATOR_STATEMENT_TIMEOUT_MS } from "../src/index.ts";

describe("loadConfig", () => {
  it("gives working defaults for a bare environment (embedded database, in-process limits)", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.environment).toBe("staging");
    expect(config.database.kind).toBe("pglite");
    expect(config.publicBaseUrl).toBe("http://localhost:3000");
    expect(config.rateLimit.store).toEqual({ kind: "memory" });
    expect(config.rateLimit.ban).toEqual({ threshold: 30, windowSeconds: 600, baseSeconds: 900 });
    expect(config.servers.production).toMatch(/\/v1$/);
  });

  it("selects PostgreSQL and Redis from their URLs", () => {
    const config = loadConfig({
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/x",
      REDIS_URL: "redis://127.0.0.1:6379",
      PUBLIC_BASE_URL: "https://api.example.com/",
    });
    expect(config.database).toMatchObject({
      kind: "postgres",
      url: "postgresql://postgres@127.0.0.1:5432/x",
    });
    expect(config.rateLimit.store).toEqual({ kind: "redis", url: "redis://127.0.0.1:6379" });
    expect(config.publicBaseUrl).toBe("https://api.example.com");
  });

  it("takes PUBLIC_BASE_URL and the servers' origins as origins, refusing a path, query or user with a line saying so", () => {
    const config = loadConfig({
      PUBLIC_BASE_URL: "https://API.Example.com:443",
      PRODUCTION_ORIGIN: "https://x.example:8443/",
    });
    expect(config.publicBaseUrl).toBe("https://api.example.com");
    expect(config.servers.production).toBe("https://x.example:8443/v1");
    for (const value of [
      "https://example.com/petstore",
      "https://example.com/?a=1",
      "https://ops@example.com",
      "https://example.com/#top",
    ]) {
      expect(() => loadConfig({ PUBLIC_BASE_URL: value })).toThrow(
        new ConfigError(
          "PUBLIC_BASE_URL",
          "must be an origin such as https://api.petstore.example (scheme, host and port; no path, query or user)",
        ),
      );
    }
    expect(() => loadConfig({ STAGING_ORIGIN: "https://example.com/staging" })).toThrow(
      /STAGING_ORIGIN: must be an origin/,
    );
  });

  it.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["PETSTORE_ENV", "prod"],
    ["DATABASE_URL", "mysql://localhost/x"],
    ["LOG_LEVEL", "loud"],
    ["TRUST_PROXY", "maybe"],
    ["TRUST_PROXY", "10.0.0.0/33"],
    ["TRUST_PROXY", "10.0.0.0/8,,loopback"],
    ["RATE_LIMIT_STORE_TIMEOUT_MS", "-5"],
    ["CURSOR_SECRET", "too short"],
    ["ORDER_HOLD_MINUTES", "0"],
    ["ORDER_HOLD_MINUTES", "1441"],
    ["METRICS_TOKEN", "short"],
    ["METRICS_ENABLED", "perhaps"],
    ["ANALYTICS_ENABLED", "sometimes"],
    ["ANALYTICS_RETENTION_DAYS", "0"],
    ["ANALYTICS_RETENTION_DAYS", "ninety"],
    ["ANALYTICS_FLUSH_INTERVAL_MS", "50"],
    ["ANALYTICS_FLUSH_INTERVAL_MS", "60001"],
    ["SESSION_MAX_DAYS", "0"],
    ["SESSION_MAX_DAYS", "366"],
    ["PASSWORD_HASH_COST", "9"],
    ["PASSWORD_HASH_COST", "21"],
    ["PASSWORD_HASH_COST", "fifteen"],
    ["WEBHOOKS_ALLOW_PRIVATE_TARGETS", "sure"],
    ["WEBHOOKS_RETRY_SCHEDULE", "5 seconds"],
    ["WEBHOOKS_RETRY_SCHEDULE", "5s,,5m"],
    ["WEBHOOKS_RETRY_SCHEDULE", "25h"],
    ["WEBHOOKS_TIMEOUT_MS", "0"],
    ["WEBHOOKS_CONCURRENCY", "many"],
    ["CORS_ALLOWED_ORIGINS", "tools.example.com"],
    ["CORS_ALLOWED_ORIGINS", "https://tools.example.com/app"],
    ["CORS_ALLOWED_ORIGINS", "https://a.example, ftp://b.example"],
    ["CORS_ALLOWED_ORIGINS", ","],
  ])("stops on a bad %s naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`Invalid environment variable ${name}`));
  });

  it("allows every browser origin by default, or the listed origins of CORS_ALLOWED_ORIGINS", () => {
    expect(loadConfig({}).cors.allowedOrigins).toBe("*");
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: " * " }).cors.allowedOrigins).toBe("*");
    expect(
      loadConfig({ CORS_ALLOWED_ORIGINS: "https://tools.example.com, http://localhost:5173/" }).cors
        .allowedOrigins,
    ).toEqual(["https://tools.example.com", "http://localhost:5173"]);
  });

  it("requires the Upstash URL and token together", () => {
    expect(() => loadConfig({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" })).toThrow(
      /UPSTASH_REDIS_REST_TOKEN/,
    );
  });

  it("traces only with an OTLP endpoint and OTEL_SDK_DISABLED not true; the traces URL, name and sampler as OpenTelemetry defines them", () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(
      loadConfig({ OTEL_SERVICE_NAME: "api", OTEL_TRACES_SAMPLER: "always_on" }).tracing,
    ).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).tracing).toEqual({
      tracesUrl: "http://collector:4318/v1/traces",
      serviceName: "petstore",
      sampler: { name: "parentbased_always_on", ratio: 1 },
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example/base/" }).tracing?.tracesUrl).toBe(
      "https://otel.example/base/v1/traces",
    );
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:9000/otlp",
        OTEL_SERVICE_NAME: "petstore-api",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.1",
      }).tracing,
    ).toEqual({
      tracesUrl: "http://traces:9000/otlp",
      serviceName: "petstore-api",
      sampler: { name: "parentbased_traceidratio", ratio: 0.1 },
    });
    for (const disabled of ["true", "TRUE", " True "])
      expect(
        loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: disabled })
          .tracing,
      ).toBeUndefined();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "false" })
        .tracing,
    ).toBeDefined();
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: "jaeger_remote" })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: "2" })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });

  it("holds an order's animal ORDER_HOLD_MINUTES, 30 by default", () => {
    expect(loadConfig({}).orders.holdMinutes).toBe(30);
    expect(loadConfig({ ORDER_HOLD_MINUTES: "5" }).orders.holdMinutes).toBe(5);
  });

  it("takes the cursor secret from CURSOR_SECRET, else leaves it to the database", () => {
    expect(loadConfig({}).cursorSecret).toBeUndefined();
    const secret = "s".repeat(32);
    expect(loadConfig({ CURSOR_SECRET: secret }).cursorSecret).toBe(secret);
  });

  it("serves metrics by default, without a token, to loopback; METRICS_TOKEN, METRICS_PUBLIC and METRICS_ENABLED change that", () => {
    expect(loadConfig({}).metrics).toEqual({ enabled: true, public: false });
    expect(loadConfig({ METRICS_PUBLIC: "true" }).metrics).toEqual({ enabled: true, public: true });
    const token = "t".repeat(16);
    expect(loadConfig({ METRICS_TOKEN: token, METRICS_ENABLED: "false" }).metrics).toEqual({
      enabled: false,
      token,
      public: false,
    });
    expect(() => loadConfig({ METRICS_PUBLIC: "sometimes" })).toThrow(/METRICS_PUBLIC/);
  });

  it("counts analytics by default, kept 90 days, written every 5 s; the ANALYTICS_* variables change that", () => {
    expect(loadConfig({}).analytics).toEqual({ enabled: true, retentionDays: 90, flushIntervalMs: 5000 });
    expect(
      loadConfig({
        ANALYTICS_ENABLED: "false",
        ANALYTICS_RETENTION_DAYS: "30",
        ANALYTICS_FLUSH_INTERVAL_MS: "250",
      }).analytics,
    ).toEqual({ enabled: false, retentionDays: 30, flushIntervalMs: 250 });
  });

  it("bounds every wait on PostgreSQL, with defaults and from the environment", () => {
    const url = "postgresql://postgres@127.0.0.1:5432/x";
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({
      kind: "postgres",
      url,
      pool: {
        size: 10,
        connectTimeoutMs: 2000,
        statementTimeoutMs: 3000,
        idleInTransactionTimeoutMs: 10_000,
        maxParallelWorkersPerGather: 0,
      },
    });
    const tuned = loadConfig({
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: "20",
      DATABASE_CONNECT_TIMEOUT_MS: "500",
      DATABASE_STATEMENT_TIMEOUT_MS: "3000",
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "4000",
      DATABASE_MAX_PARALLEL_WORKERS_PER_GATHER: "2",
    });
    expect(tuned.database).toMatchObject({
      pool: {
        size: 20,
        connectTimeoutMs: 500,
        statementTimeoutMs: 3000,
        idleInTransactionTimeoutMs: 4000,
        maxParallelWorkersPerGather: 2,
      },
    });
  });

  it("trusts no proxy by default; TRUST_PROXY takes a flag, a hop count or a list of proxy addresses", () => {
    expect(loadConfig({}).trustProxy).toBe(0);
    for (const off of ["false", "0", "no", "off", ""])
      expect(loadConfig({ TRUST_PROXY: off }).trustProxy).toBe(0);
    for (const on of ["true", "1", "yes", "on", "TRUE"])
      expect(loadConfig({ TRUST_PROXY: on }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: " 10.0.0.0/8, loopback ,2001:db8::/32" }).trustProxy).toEqual([
      "10.0.0.0/8",
      "loopback",
      "2001:db8::/32",
    ]);
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.0/33" })).toThrow(
      /TRUST_PROXY: must be true, false, a hop count/,
    );
  });

  it("binds every interface by default; HOST names one address", () => {
    expect(loadConfig({}).host).toBeUndefined();
    expect(loadConfig({ HOST: "" }).host).toBeUndefined();
    expect(loadConfig({ HOST: "127.0.0.1" }).host).toBe("127.0.0.1");
  });

  it("serves the socket a supervisor passed only when LISTEN_PID names this process (sd_listen_fds)", () => {
    const pid = String(process.pid);
    expect(loadConfig({}).listenFd).toBeUndefined();
    expect(loadConfig({ LISTEN_FDS: "1", LISTEN_PID: pid }).listenFd).toBe(3);
    expect(loadConfig({ LISTEN_FDS: "2", LISTEN_PID: pid }).listenFd).toBe(3);
    // Meant for another process (inherited through a parent that did not unset it), or none passed.
    expect(loadConfig({ LISTEN_FDS: "1", LISTEN_PID: String(process.pid + 1) }).listenFd).toBeUndefined();
    expect(loadConfig({ LISTEN_FDS: "1" }).listenFd).toBeUndefined();
    expect(loadConfig({ LISTEN_FDS: "0", LISTEN_PID: pid }).listenFd).toBeUndefined();
    expect(() => loadConfig({ LISTEN_FDS: "one", LISTEN_PID: pid })).toThrow(/LISTEN_FDS/);
  });

  it("serves everything by default; PETSTORE_SERVE picks a role", () => {
    expect(loadConfig({}).serve).toBe("all");
    expect(loadConfig({ PETSTORE_SERVE: "api" }).serve).toBe("api");
    expect(() => loadConfig({ PETSTORE_SERVE: "web" })).toThrow(
      /Invalid environment variable PETSTORE_SERVE/,
    );
  });

  it("refuses production without a metrics token unless metrics are off", () => {
    expect(() => loadConfig({ PETSTORE_ENV: "production" })).toThrow(
      /Invalid environment variable METRICS_TOKEN/,
    );
    expect(loadConfig({ PETSTORE_ENV: "production", METRICS_ENABLED: "false" }).metrics.enabled).toBe(false);
    expect(loadConfig({ PETSTORE_ENV: "production", METRICS_TOKEN: "t".repeat(16) }).metrics.token).toBe(
      "t".repeat(16),
    );
  });

  it("stops and times requests as configured", () => {
    expect(loadConfig({}).shutdown).toEqual({ drainMs: 5000, timeoutMs: 25_000 });
    expect(loadConfig({}).http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
    });
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: "0" }).shutdown.drainMs).toBe(0);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: "2000" })).toThrow(/HTTP_HEADERS_TIMEOUT_MS/);
  });

  it("ends dashboard sessions after 12 idle hours and 30 days at most; SESSION_IDLE_HOURS and SESSION_MAX_DAYS change that", () => {
    expect(loadConfig({})).toMatchObject({ sessionIdleHours: 12, sessionMaxDays: 30 });
    expect(loadConfig({ SESSION_IDLE_HOURS: "2", SESSION_MAX_DAYS: "7" })).toMatchObject({
      sessionIdleHours: 2,
      sessionMaxDays: 7,
    });
  });

  it("hashes new passwords at scrypt cost 2^15 by default; PASSWORD_HASH_COST lowers it to 2^10 at least", () => {
    expect(loadConfig({}).passwordHashCost).toBe(15);
    expect(loadConfig({ PASSWORD_HASH_COST: "10" }).passwordHashCost).toBe(10);
    expect(loadConfig({ PASSWORD_HASH_COST: "17" }).passwordHashCost).toBe(17);
  });

  it("keeps an in-memory PGlite location as given", () => {
    expect(loadConfig({ PGLITE_DIR: "memory://" }).database).toEqual({ kind: "pglite", dir: "memory://" });
  });

  it("delivers webhooks to public https targets on the contract's schedule by default; tests may shorten it", () => {
    expect(loadConfig({}).webhooks).toEqual({
      allowPrivateTargets: false,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      timeoutMs: 15_000,
      pollIntervalMs: 1_000,
      concurrency: 64,
      disableAfterHours: 120,
    });
    const fast = loadConfig({
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOKS_RETRY_SCHEDULE: "200ms, 1s,2m",
      WEBHOOKS_TIMEOUT_MS: "1500",
    }).webhooks;
    expect(fast).toMatchObject({
      allowPrivateTargets: true,
      retryScheduleMs: [200, 1_000, 120_000],
      timeoutMs: 1_500,
    });
  });
});

describe("forOperatorCommands", () => {
  it("lets operator commands run long statements on PostgreSQL, keeping every other bound", () => {
    const config = loadConfig({ DATABASE_URL: "postgresql://db.internal/petstore", DATABASE_POOL_SIZE: "4" });
    const database = forOperatorCommands(config.database);
    expect(database).toEqual({
      kind: "postgres",
      url: "postgresql://db.internal/petstore",
      pool: {
        size: 4,
        connectTimeoutMs: 2000,
        statementTimeoutMs: OPERATOR_STATEMENT_TIMEOUT_MS,
        idleInTransactionTimeoutMs: 10_000,
        maxParallelWorkersPerGather: 0,
      },
    });
    expect(config.database).toMatchObject({ pool: { statementTimeoutMs: 3000 } });
  });

  it("keeps a longer configured bound, and leaves the embedded database as it is", () => {
    const long = loadConfig({ DATABASE_URL: "postgresql://db/p", DATABASE_STATEMENT_TIMEOUT_MS: "7200000" });
    expect(forOperatorCommands(long.database)).toMatchObject({ pool: { statementTimeoutMs: 7_200_000 } });
    const embedded = loadConfig({});
    expect(forOperatorCommands(embedded.database)).toBe(embedded.database);
  });
});
