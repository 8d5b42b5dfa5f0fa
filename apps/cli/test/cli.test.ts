/**
 * The petstore command as an operator runs it: a real process against a real database (a fresh PostgreSQL
 * database, and an embedded PGlite folder for the default set-up).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ErrorBody } from "@petstore/contracts";
import { createTemporaryDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MAIN = path.join(import.meta.dirname, "../src/main.ts");

function petstore(args: string[], env: Record<string, string>, input?: string) {
  const result = spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", ...env },
    input,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("petstore command on PostgreSQL", () => {
  let db: TemporaryDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await createTemporaryDatabase("petstore_cli");
    env = { DATABASE_URL: db.url };
    const migrated = petstore(["db", "migrate"], env);
    expect(migrated.stderr).toBe("");
    expect(migrated.code).toBe(0);
  });
  afterAll(() => db?.drop());

  it("migrates with statements longer than the request path's bound (operator commands have their own)", async () => {
    const fresh = await createTemporaryDatabase("petstore_cli_bound");
    try {
      const migrated = petstore(["db", "migrate"], {
        DATABASE_URL: fresh.url,
        DATABASE_STATEMENT_TIMEOUT_MS: "1",
      });
      expect(migrated.stderr).toBe("");
      expect(migrated.code).toBe(0);
      expect(migrated.stdout).toMatch(/Applied \d+ migration/);
    } finally {
      await fresh.drop();
    }
  });

  it("says when there is nothing to migrate", () => {
    const again = petstore(["db", "migrate"], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("up to date");
  });

  it("issues a key with --json as one line {id, key, prefix, plan, scopes}, lists, revokes it", () => {
    const created = petstore(["keys", "create", "--name", "Acme", "--plan", "pro", "--json"], env);
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const key = JSON.parse(lines[0] as string);
    expect(Object.keys(key).sort()).toEqual(["id", "key", "plan", "prefix", "scopes"]);
    expect(key.key).toMatch(/^pet_test_/);
    expect(key.plan).toBe("pro");
    expect(key.scopes).toEqual(["pets:read", "pets:write"]);

    const listed = JSON.parse(petstore(["keys", "list", "--json"], env).stdout);
    const row = listed.find((k: { id: string }) => k.id === key.id);
    expect(row).toMatchObject({
      name: "Acme",
      plan: "pro",
      state: "active",
      prefix: key.prefix,
      scopes: ["pets:read", "pets:write"],
      requestsToday: 0,
    });
    expect(JSON.stringify(listed)).not.toContain(key.key);

    const revoked = petstore(["keys", "revoke", key.prefix], env);
    expect(revoked.code).toBe(0);
    const after = JSON.parse(petstore(["keys", "list", "--json"], env).stdout);
    expect(after.find((k: { id: string }) => k.id === key.id).state).toBe("revoked");
  });

  it("refuses seed --scale on a database that holds data, and in production", () => {
    expect(petstore(["keys", "create", "--name", "Already here", "--plan", "free"], env).code).toBe(0);
    const busy = petstore(["db", "seed", "--scale", "--json"], env);
    expect(busy.code).toBe(1);
    expect(JSON.parse(busy.stdout)).toMatchObject({ code: "conflict", status: 409 });
    expect(JSON.parse(busy.stdout).message).toMatch(/already holds data .* new, empty database/);
    const production = petstore(["db", "seed", "--scale"], {
      ...env,
      PETSTORE_ENV: "production",
      METRICS_ENABLED: "false",
    });
    expect(production.code).toBe(1);
    expect(production.stderr).toMatch(/never added in production/);
    const stray = petstore(["db", "seed", "--big"], env);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/--big/);
  });

  it("rolls a key, printing the new secret once", () => {
    const created = JSON.parse(
      petstore(["keys", "create", "--name", "Roll", "--plan", "free", "--json"], env).stdout,
    );
    const rolled = petstore(["keys", "roll", created.id, "--grace", "1h", "--json"], env);
    expect(rolled.code).toBe(0);
    const fresh = JSON.parse(rolled.stdout);
    expect(fresh.id).not.toBe(created.id);
    expect(fresh.plan).toBe("free");
    const again = petstore(["keys", "roll", fresh.id], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("the old key keeps working for 24h");
    // The first key, in its grace period, is rolled no more: the answer names the key to roll instead.
    const newest = /New key (pet_test_\w+)…/.exec(again.stdout)?.[1];
    const twice = petstore(["keys", "roll", created.id, "--json"], env);
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stdout)).toEqual({
      code: "conflict",
      status: 409,
      message: `Key ${created.prefix}… was already rolled to ${fresh.prefix}…; roll ${newest}… (the newest key of its lineage) instead.`,
    });
  });

  it("issues a key with fewer scopes, changes them, and a roll keeps them", () => {
    const created = petstore(
      ["keys", "create", "--name", "Shop window", "--plan", "free", "--scopes", "pets:read", "--json"],
      env,
    );
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.scopes).toEqual(["pets:read"]);
    const text = petstore(
      ["keys", "create", "--name", "Text", "--plan", "free", "--scopes", " pets:write , "],
      env,
    );
    expect(text.stdout).toContain("scopes pets:write");

    const changed = petstore(
      ["keys", "scopes", key.prefix, "--scopes", "pets:write,pets:read", "--json"],
      env,
    );
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toEqual({
      id: key.id,
      prefix: key.prefix,
      scopes: ["pets:read", "pets:write"],
    });
    expect(petstore(["keys", "scopes", key.id, "--scopes", "pets:write"], env).stdout).toContain(
      "now has the scopes pets:write",
    );
    const rolled = JSON.parse(petstore(["keys", "roll", key.id, "--json"], env).stdout);
    expect(rolled.scopes).toEqual(["pets:write"]);
    const listed = JSON.parse(petstore(["keys", "list", "--json"], env).stdout);
    expect(listed.find((k: { id: string }) => k.id === rolled.id).scopes).toEqual(["pets:write"]);
  });

  it("purges stale rows on demand (db purge), reporting what it deleted", () => {
    const purged = petstore(["db", "purge", "--json"], env);
    expect(purged.stderr).toBe("");
    expect(purged.code).toBe(0);
    const report = JSON.parse(purged.stdout);
    expect(report.skipped).toBe(false);
    expect(Object.keys(report.deleted).sort()).toEqual([
      "idempotencyRecords",
      "sessions",
      "signInThrottles",
      "usageHours",
      "webhookMessages",
    ]);
    expect(petstore(["db", "purge"], env).stdout).toMatch(/^Purged: idempotencyRecords 0, sessions 0/);
  });

  it("shows the plans with the spec's limits", () => {
    const plans = JSON.parse(petstore(["plans", "list", "--json"], env).stdout);
    expect(plans).toEqual([
      { name: "free", perMinute: 60, perDay: 1000 },
      { name: "pro", perMinute: 300, perDay: 10000 },
      { name: "business", perMinute: 1000, perDay: 100000 },
      { name: "enterprise", perMinute: null, perDay: null },
    ]);
  });

  it("creates a dashboard user with the password from stdin", () => {
    const created = petstore(
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
  ])("exits 2 with a clear message for %j", (args, message) => {
    const result = petstore(args as string[], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("exits 1 with a message (no stack) for an unknown key", () => {
    const result = petstore(["keys", "revoke", "pet_test_zzz"], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No API key");
    expect(result.stderr).not.toContain("    at ");
  });

  describe("failures with --json print the API's Error body on stdout", () => {
    function errorBodyOf(result: ReturnType<typeof petstore>) {
      const lines = result.stdout.trim().split("\n");
      expect(lines).toHaveLength(1);
      const body = JSON.parse(lines[0] as string);
      // The same fields, types and codes as the REST API's Error body (and @petstore/client's errors).
      expect(ErrorBody.strict().parse(body)).toEqual(body);
      return body;
    }

    it("a missing key: not_found, exit 1", () => {
      const result = petstore(["keys", "roll", "pet_test_zzz", "--json"], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe("");
      const body = errorBodyOf(result);
      expect(body).toMatchObject({ code: "not_found", status: 404 });
      expect(body.message).toContain("No API key");
    });

    it("a value that breaks its schema: validation_failed naming the option, exit 2", () => {
      const result = petstore(["keys", "create", "--name", "x", "--plan", "gold", "--json"], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe("");
      const body = errorBodyOf(result);
      expect(body).toMatchObject({ code: "validation_failed", status: 400 });
      expect(body.message).toContain("Invalid --plan");
      expect(body.details).toEqual([{ path: "--plan", message: expect.any(String) }]);
    });

    it("an unreachable database: service_unavailable (503) like the API, exit 1", () => {
      // Nothing listens on port 1: the same outage the API answers with 503.
      const result = petstore(["keys", "list", "--json"], {
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

    it("an unknown option: invalid_request, exit 2", () => {
      const result = petstore(["keys", "list", "--json", "--colour", "red"], env);
      expect(result.code).toBe(2);
      const body = errorBodyOf(result);
      expect(body).toMatchObject({ code: "invalid_request", status: 400 });
      expect(body.message).toContain("colour");
      expect(body.details).toBeUndefined();
    });

    it("a bad environment variable: validation_failed naming it, exit 2", () => {
      const result = petstore(["plans", "list", "--json"], { ...env, PETSTORE_ENV: "prod" });
      expect(result.code).toBe(2);
      const body = errorBodyOf(result);
      expect(body).toMatchObject({ code: "validation_failed", status: 400 });
      expect(body.details).toEqual([
        { path: "PETSTORE_ENV", message: expect.stringContaining("PETSTORE_ENV") },
      ]);
    });

    it("without --json the same failure stays a message on stderr", () => {
      const result = petstore(["keys", "roll", "pet_test_zzz"], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^petstore: No API key/);
    });
  });

  it("stops on a bad environment variable, naming it", () => {
    const result = petstore(["plans", "list"], { ...env, PETSTORE_ENV: "prod" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("PETSTORE_ENV");
  });
});

describe("petstore command on the embedded database", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-cli-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("migrates and seeds idempotently", () => {
    const env = { PGLITE_DIR: dir };
    const first = petstore(["db", "seed"], env);
    expect(first.code).toBe(0);
    const second = petstore(["db", "seed"], env);
    expect(second.code).toBe(0);
    const counts = (out: string) => JSON.parse(out.replace(/^Seeded: /, ""));
    expect(counts(second.stdout).pets).toBe(counts(first.stdout).pets);
    expect(counts(second.stdout).categories).toBe(6);
  });

  it("refuses seed --scale with a message saying it needs PostgreSQL", () => {
    const refused = petstore(["db", "seed", "--scale"], { PGLITE_DIR: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/needs PostgreSQL \(set DATABASE_URL/);
  });
});
