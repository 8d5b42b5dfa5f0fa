import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/index.ts";

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
    expect(config.database).toEqual({ kind: "postgres", url: "postgresql://postgres@127.0.0.1:5432/x" });
    expect(config.rateLimit.store).toEqual({ kind: "redis", url: "redis://127.0.0.1:6379" });
    expect(config.publicBaseUrl).toBe("https://api.example.com");
  });

  it.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["PETSTORE_ENV", "prod"],
    ["DATABASE_URL", "mysql://localhost/x"],
    ["LOG_LEVEL", "loud"],
    ["TRUST_PROXY", "maybe"],
    ["RATE_LIMIT_STORE_TIMEOUT_MS", "-5"],
    ["CURSOR_SECRET", "too short"],
    ["METRICS_TOKEN", "short"],
    ["METRICS_ENABLED", "perhaps"],
    ["ANALYTICS_ENABLED", "sometimes"],
    ["ANALYTICS_RETENTION_DAYS", "0"],
    ["ANALYTICS_RETENTION_DAYS", "ninety"],
  ])("stops on a bad %s naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`Invalid environment variable ${name}`));
  });

  it("requires the Upstash URL and token together", () => {
    expect(() => loadConfig({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" })).toThrow(
      /UPSTASH_REDIS_REST_TOKEN/,
    );
  });

  it("takes the cursor secret from CURSOR_SECRET, else leaves it to the database", () => {
    expect(loadConfig({}).cursorSecret).toBeUndefined();
    const secret = "s".repeat(32);
    expect(loadConfig({ CURSOR_SECRET: secret }).cursorSecret).toBe(secret);
  });

  it("serves metrics by default, without a token; METRICS_TOKEN and METRICS_ENABLED change that", () => {
    expect(loadConfig({}).metrics).toEqual({ enabled: true });
    const token = "t".repeat(16);
    expect(loadConfig({ METRICS_TOKEN: token, METRICS_ENABLED: "false" }).metrics).toEqual({
      enabled: false,
      token,
    });
  });

  it("counts analytics by default, kept 90 days; ANALYTICS_ENABLED and ANALYTICS_RETENTION_DAYS change that", () => {
    expect(loadConfig({}).analytics).toEqual({ enabled: true, retentionDays: 90 });
    expect(loadConfig({ ANALYTICS_ENABLED: "false", ANALYTICS_RETENTION_DAYS: "30" }).analytics).toEqual({
      enabled: false,
      retentionDays: 30,
    });
  });

  it("keeps an in-memory PGlite location as given", () => {
    expect(loadConfig({ PGLITE_DIR: "memory://" }).database).toEqual({ kind: "pglite", dir: "memory://" });
  });
});
