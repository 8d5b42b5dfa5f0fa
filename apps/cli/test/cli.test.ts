/**
 * The petstore command as an operator runs it, called in this process (`main`) against a real, migrated
 * PostgreSQL database: what it prints, in which format, and its exit codes. process.test.ts starts the real
 * process for the checks of the process entry, migrating a fresh database and the embedded database.
 */
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBodyOf, petstore } from "./support.ts";

describe("petstore command on PostgreSQL", () => {
  let db: TemporaryDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_cli");
    env = { DATABASE_URL: db.url };
  });
  afterAll(() => db?.drop());

  it("says when there is nothing to migrate", async () => {
    const again = await petstore(["db", "migrate"], env);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("up to date");
  });

  it("issues a key with --json as one line {id, key, prefix, plan, scopes}, lists, revokes it", async () => {
    const created = await petstore(["keys", "create", "--name", "Acme", "--plan", "pro", "--json"], env);
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const key = JSON.parse(lines[0] as string);
    expect(Object.keys(key).sort()).toEqual(["id", "key", "plan", "prefix", "scopes"]);
    expect(key.key).toMatch(/^pet_test_/);
    expect(key.plan).toBe("pro");
    expect(key.scopes).toEqual(["pets:read", "pets:write", "orders:read", "orders:write"]);

    const listed = JSON.parse((await petstore(["keys", "list", "--json"], env)).stdout);
    const row = listed.find((k: { id: string }) => k.id === key.id);
    expect(row).toMatchObject({
      name: "Acme",
      plan: "pro",
      state: "active",
      prefix: key.prefix,
      scopes: ["pets:read", "pets:write", "orders:read", "orders:write"],
      requestsToday: 0,
    });
    expect(JSON.stringify(listed)).not.toContain(key.key);

    const revoked = await petstore(["keys", "revoke", key.prefix], env);
    expect(revoked.code).toBe(0);
    const after = JSON.parse((await petstore(["keys", "list", "--json"], env)).stdout);
    expect(after.find((k: { id: string }) => k.id === key.id).state).toBe("revoked");
  });

  it("refuses seed --scale on a database that holds data, and in production", async () => {
    const here = await petstore(["keys", "create", "--name", "Already here", "--plan", "free"], env);
    expect(here.code).toBe(0);
    const busy = await petstore(["db", "seed", "--scale", "--json"], env);
    expect(busy.code).toBe(1);
    expect(JSON.parse(busy.stdout)).toMatchObject({ code: "conflict", status: 409 });
    expect(JSON.parse(busy.stdout).message).toMatch(/already holds data .* new, empty database/);
    const production = await petstore(["db", "seed", "--scale"], {
      ...env,
      PETSTORE_ENV: "production",
      METRICS_ENABLED: "false",
    });
    expect(production.code).toBe(1);
    expect(production.stderr).toMatch(/never added in production/);
    const stray = await petstore(["db", "seed", "--big"], env);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/--big/);
  });

  it("rolls a key, printing the new secret once", async () => {
    const created = JSON.parse(
      (await petstore(["keys", "create", "--name", "Roll", "--plan", "free", "--json"], env)).stdout,
    );
    const rolled = await petstore(["keys", "roll", created.id, "--grace", "1h", "--json"], env);
    expect(rolled.code).toBe(0);
    const fresh = JSON.parse(rolled.stdout);
    expect(fresh.id).not.toBe(created.id);
    expect(fresh.plan).toBe("free");
    const again = await petstore(["keys", "roll", fresh.id], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("the old key keeps working for 24h");
    // The first key, in its grace period, is rolled no more: the answer names the key to roll instead.
    const newest = /New key (pet_test_\w+)…/.exec(again.stdout)?.[1];
    const twice = await petstore(["keys", "roll", created.id, "--json"], env);
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stdout)).toEqual({
      code: "conflict",
      status: 409,
      message: `Key ${created.prefix}… was already rolled to ${fresh.prefix}…; roll ${newest}… (the newest key of its lineage) instead.`,
    });
  });

  it("issues a key with fewer scopes, changes them, and a roll keeps them", async () => {
    const created = await petstore(
      ["keys", "create", "--name", "Shop window", "--plan", "free", "--scopes", "pets:read", "--json"],
      env,
    );
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.scopes).toEqual(["pets:read"]);
    const text = await petstore(
      ["keys", "create", "--name", "Text", "--plan", "free", "--scopes", " pets:write , "],
      env,
    );
    expect(text.stdout).toContain("scopes pets:write");

    const changed = await petstore(
      ["keys", "scopes", key.prefix, "--scopes", "pets:write,pets:read", "--json"],
      env,
    );
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toEqual({
      id: key.id,
      prefix: key.prefix,
      scopes: ["pets:read", "pets:write"],
    });
    expect((await petstore(["keys", "scopes", key.id, "--scopes", "pets:write"], env)).stdout).toContain(
      "now has the scopes pets:write",
    );
    const rolled = JSON.parse((await petstore(["keys", "roll", key.id, "--json"], env)).stdout);
    expect(rolled.scopes).toEqual(["pets:write"]);
    const listed = JSON.parse((await petstore(["keys", "list", "--json"], env)).stdout);
    expect(listed.find((k: { id: string }) => k.id === rolled.id).scopes).toEqual(["pets:write"]);
  });

  it("purges stale rows on demand (db purge), reporting what it deleted", async () => {
    const purged = await petstore(["db", "purge", "--json"], env);
    expect(purged.stderr).toBe("");
    expect(purged.code).toBe(0);
    const report = JSON.parse(purged.stdout);
    expect(report.skipped).toBe(false);
    expect(Object.keys(report.deleted).sort()).toEqual([
      "endedSessions",
      "idempotencyRecords",
      "passwordResets",
      "requestLog",
      "sessions",
      "signInThrottles",
      "usageAlerts",
      "usageHours",
      "webhookMessages",
    ]);
    expect((await petstore(["db", "purge"], env)).stdout).toMatch(
      /^Purged: idempotencyRecords 0, sessions 0/,
    );
  });

  it("shows the plans with the spec's limits", async () => {
    const plans = JSON.parse((await petstore(["plans", "list", "--json"], env)).stdout);
    expect(plans).toEqual([
      { name: "free", perMinute: 60, perDay: 1000, perMonth: null, maxKeys: 3 },
      { name: "pro", perMinute: 300, perDay: 10000, perMonth: null, maxKeys: 10 },
      { name: "business", perMinute: 1000, perDay: 100000, perMonth: null, maxKeys: 25 },
      { name: "enterprise", perMinute: null, perDay: null, perMonth: null, maxKeys: null },
    ]);
    // Without --json, a table on stdout.
    expect((await petstore(["plans", "list"], env)).stdout).toMatch(/│ 'free'\s+│ 60\s+│ 1000/);
  });

  it("creates a dashboard user with the password from stdin", async () => {
    const created = await petstore(
      [
        "users",
        "create",
        "--email",
        "Ops@Example.com",
        "--name",
        "Ops",
        "--role",
        "admin",
        "--password-stdin",
        "--json",
      ],
      env,
      "a long enough password\n",
    );
    expect(created.stderr).toBe("");
    expect(JSON.parse(created.stdout)).toMatchObject({ email: "ops@example.com", role: "admin" });
  });

  it.each([
    [[], "No command given"],
    [["fly"], "Unknown command"],
    [["keys", "create", "--name", "x"], "needs --plan"],
    [["keys", "create", "--name", "x", "--plan", "gold"], "Invalid --plan"],
    [["keys", "create", "--name", "x", "--plan", "enterprise"], "Enterprise"],
    [["keys", "create", "--name", "x", "--plan", "free", "--expires-in", "soon"], "--expires-in"],
    [["keys", "create", "--name", "x", "--plan", "free", "--colour", "red"], "Unknown option"],
    [["keys", "roll", "abc", "--grace", "30d"], "--grace"],
    [["keys", "revoke"], "needs an id or prefix"],
    [["keys", "create", "--name", "x", "--plan", "free", "--scopes", "pets:delete"], "Invalid --scopes"],
    [["keys", "create", "--name", "x", "--plan", "free", "--scopes", ","], "at least one scope"],
    [["keys", "scopes", "abc"], "needs --scopes"],
    [["keys", "scopes", "abc", "--scopes", "admin"], "must be one of pets:read, pets:write"],
    // The same rules as the dashboard's users.create (contracts' UserCreate), checked before the password.
    [
      ["users", "create", "--email", "a@example.com", "--name", "\u202E", "--role", "staff"],
      "Invalid --name",
    ],
    [["users", "create", "--email", "nope", "--name", "Al", "--role", "staff"], "Invalid --email"],
    [["users", "create", "--email", "a@example.com", "--name", "Al", "--role", "root"], "Invalid --role"],
    [["db", "drop"], "Unknown db command"],
  ])("exits 2 with a clear message and the usage on stderr for %j", async (args, message) => {
    const result = await petstore(args as string[], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^petstore: /);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain("Usage: npm run petstore");
  });

  it.each([["help"], ["--help"], ["-h"]])("prints the usage on stdout and exits 0 for %s", async (flag) => {
    const result = await petstore([flag], env);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^Usage: npm run petstore -- <command>/);
  });

  it("exits 1 with a message (no stack) for an unknown key", async () => {
    const result = await petstore(["keys", "revoke", "pet_test_zzz"], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No API key");
    expect(result.stderr).not.toContain("    at ");
  });

  describe("failures with --json print the API's Error body on stdout", () => {
    it("a missing key: not_found, exit 1", async () => {
      const result = await petstore(["keys", "roll", "pet_test_zzz", "--json"], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe("");
      const body = errorBodyOf(result);
      expect(body).toMatchObject({ code: "not_found", status: 404 });
      expect(body.message).toContain("No API key");
    });

    it("a value that breaks its schema: validation_failed naming the option, exit 2", async () => {
      const result = await petstore(["keys", "create", "--name", "x", "--plan", "gold", "--json"], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe("");
      const body = errorBodyOf(result);
      expect(body).toMatchObject({ code: "validation_failed", status: 400 });
      expect(body.message).toContain("Invalid --plan");
      expect(body.details).toEqual([{ path: "--plan", message: expect.any(String) }]);
    });

    it("an unreachable database: service_unavailable (503) like the API, exit 1", async () => {
      // Nothing listens on port 1: the same outage the API answers with 503.
      const result = await petstore(["keys", "list", "--json"], {
        DATABASE_URL: "postgresql://postgres@127.0.0.1:1/petstore",
      });
      expect(result.code).toBe(1);
      const body = errorBodyOf(result);
      expect(Object.keys(body).sort()).toEqual(["code", "message", "status"]);
      expect(body).toMatchObject({ code: "service_unavailable", status: 503 });
      expect(body.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
      // The operator still learns why, on stderr.
      expect(result.stderr).toContain("127.0.0.1:1");
    });

    it("an unknown option: invalid_request, exit 2", async () => {
      const result = await petstore(["keys", "list", "--json", "--colour", "red"], env);
      expect(result.code).toBe(2);
      const body = errorBodyOf(result);
      expect(body).toMatchObject({ code: "invalid_request", status: 400 });
      expect(body.message).toContain("colour");
      expect(body.details).toBeUndefined();
    });

    it("a bad environment variable: validation_failed naming it, exit 2", async () => {
      const result = await petstore(["plans", "list", "--json"], { ...env, PETSTORE_ENV: "prod" });
      expect(result.code).toBe(2);
      const body = errorBodyOf(result);
      expect(body).toMatchObject({ code: "validation_failed", status: 400 });
      expect(body.details).toEqual([
        { path: "PETSTORE_ENV", message: expect.stringContaining("PETSTORE_ENV") },
      ]);
    });

    it("without --json the same failure stays a message on stderr", async () => {
      const result = await petstore(["keys", "roll", "pet_test_zzz"], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^petstore: No API key/);
    });
  });

  it("stops on a bad environment variable, naming it", async () => {
    const result = await petstore(["plans", "list"], { ...env, PETSTORE_ENV: "prod" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("PETSTORE_ENV");
  });
});
