/**
 * The petstore command as its own process (`node --import tsx src/main.ts`, as `npm run petstore` starts it):
 * migrating a fresh PostgreSQL database with operator bounds, a failure's exit code and Error body on stdout,
 * the password on the process's stdin, a > 1 MB answer written whole to a pipe whose reader is slow, and the
 * embedded database in its default folder. Everything else about
 * the commands, bad arguments' exit code 2 and usage among them, is checked in this process (cli.test.ts,
 * webhooks.test.ts): the entry passes `main`'s code and streams through unchanged.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@petstore/config";
import { openRuntime } from "@petstore/core";
import {
  createMigratedDatabase,
  createTemporaryDatabase,
  databaseOf,
  type TemporaryDatabase,
} from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBodyOf, petstore, spawnPetstore, spawnPetstoreSlowly } from "./support.ts";

describe.concurrent("petstore as a process", () => {
  let fresh: TemporaryDatabase;
  let folder: string;
  beforeAll(async () => {
    fresh = await createTemporaryDatabase("petstore_cli_process");
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-cli-"));
  });
  afterAll(async () => {
    await fresh?.drop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it("migrates a fresh database with statements longer than the request path's bound, then reports failures by exit code and stream", async () => {
    // Operator commands have their own statement bound: 1 ms would stop every migration otherwise.
    const migrated = await spawnPetstore(["db", "migrate"], {
      DATABASE_URL: fresh.url,
      DATABASE_STATEMENT_TIMEOUT_MS: "1",
    });
    expect(migrated.stderr).toBe("");
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(/Applied \d+ migration/);

    const env = { DATABASE_URL: fresh.url };
    const [missing, user] = await Promise.all([
      spawnPetstore(["keys", "roll", "pet_test_zzz", "--json"], env),
      spawnPetstore(
        ["users", "create", "--email", "ops@example.com", "--name", "Ops", "--role", "staff", "--json"],
        env,
        { input: "a long enough password\n" },
      ),
    ]);
    // A failure with --json: exit code 1, the Error body on stdout, nothing on stderr.
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("");
    expect(errorBodyOf(missing)).toMatchObject({ code: "not_found", status: 404 });
    // The password comes from the process's stdin.
    expect(user.stderr).toBe("");
    expect(user.code).toBe(0);
    expect(JSON.parse(user.stdout)).toMatchObject({ email: "ops@example.com", role: "staff" });
  });

  it("writes a > 1 MB --json answer whole through a pipe whose reader is slower than the command", async () => {
    const piped = await createMigratedDatabase("petstore_cli_piped");
    try {
      const env = { DATABASE_URL: piped.url };
      // Opening a runtime adds the plans the keys refer to.
      const rt = await openRuntime({ config: loadConfig({ ...env, LOG_LEVEL: "silent" }) });
      try {
        // 3,000 keys with long names: about 2 MB of JSON, 30 times what a pipe holds.
        await databaseOf(rt).prisma.$executeRaw`
          INSERT INTO "ApiKey" ("id", "hash", "prefix", "name", "planName", "environment", "createdBy")
          SELECT gen_random_uuid(), md5(i::text), 'pet_test_' || i, repeat('n', 400) || i, 'free', 'staging', 'test'
          FROM generate_series(1, 3000) AS i`;
      } finally {
        await rt.close();
      }
      const listed = await spawnPetstoreSlowly(["keys", "list", "--json"], env);
      expect(listed.stderr).toBe("");
      expect(listed.code).toBe(0);
      expect(listed.stdout.length).toBeGreaterThan(1_000_000);
      expect(JSON.parse(listed.stdout)).toHaveLength(3000);
    } finally {
      await piped.drop();
    }
  });

  it("keeps the embedded database in .data/pglite under the repository root, migrates and seeds it idempotently", async () => {
    // A folder holding turbo.json is a repository root.
    fs.writeFileSync(path.join(folder, "turbo.json"), "{}");
    const first = await spawnPetstore(["db", "seed"], {}, { cwd: folder });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const dir = path.join(folder, ".data/pglite");
    expect(fs.existsSync(path.join(dir, "PG_VERSION"))).toBe(true);

    // The same folder, from this process.
    const second = await petstore(["db", "seed"], { PGLITE_DIR: dir });
    expect(second.code).toBe(0);
    const counts = (out: string) => JSON.parse(out.replace(/^Seeded: /, ""));
    expect(counts(second.stdout).pets).toBe(counts(first.stdout).pets);
    expect(counts(second.stdout).categories).toBe(6);

    const refused = await petstore(["db", "seed", "--scale"], { PGLITE_DIR: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/needs PostgreSQL \(set DATABASE_URL/);
  });
});
