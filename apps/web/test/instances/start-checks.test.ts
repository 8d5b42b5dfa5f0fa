/**
 * The server process refuses a database that does not hold its build's migrations (docs/operations.md
 * "Migrations"): on a PostgreSQL database missing the latest migration, or an empty one, it exits with code 2 and
 * one line naming the fix, without listening; with MIGRATE_ON_START=true it applies the missing migration and
 * serves. The API role runs server.ts from source: the start-up path is the same, and no Next build is needed.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findRepoRoot } from "@petstore/config";
import { migrate } from "@petstore/core/migrate";
import { createTemporaryDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/common.ts";
import { startProductionServer, WEB_DIR } from "./production-server.ts";

const SERVER = "server.ts";

/** Runs server.ts with `env` until it exits. @returns its exit code and output. */
function runUntilExit(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", SERVER], {
    cwd: WEB_DIR,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      PETSTORE_SERVE: "api",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("server start-up on a database behind the build", () => {
  let behind: TemporaryDatabase;
  let empty: TemporaryDatabase;
  let latest: string;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-start-checks-"));

  beforeAll(async () => {
    // The repository's migrations without the latest one: the database of the release before this one.
    const migrationsDir = path.join(findRepoRoot(import.meta.dirname), "prisma", "migrations");
    const before = path.join(folder, "migrations");
    fs.cpSync(migrationsDir, before, { recursive: true });
    latest = fs
      .readdirSync(before, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
      .at(-1) as string;
    fs.rmSync(path.join(before, latest), { recursive: true });
    [behind, empty] = await Promise.all([
      createTemporaryDatabase("petstore_start_behind"),
      createTemporaryDatabase("petstore_start_empty"),
    ]);
    await migrate({ kind: "postgres", url: behind.url }, { paths: { migrationsDir: before } });
  });
  afterAll(async () => {
    await behind?.drop();
    await empty?.drop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it("exits 2 with one line naming the fix, and with MIGRATE_ON_START=true migrates and serves", async () => {
    const pending = await runUntilExit({ DATABASE_URL: behind.url });
    expect(pending.code).toBe(2);
    expect(pending.stdout).toBe("");
    expect(pending.stderr).toBe(
      `The database lacks 1 migration(s) of this build (${latest}): run \`petstore db migrate\` ` +
        "(npm run petstore -- db migrate), or start with MIGRATE_ON_START=true.\n",
    );

    const blank = await runUntilExit({ DATABASE_URL: empty.url });
    expect(blank.code).toBe(2);
    expect(blank.stderr).toBe(
      "The database is empty: run `petstore db migrate` (npm run petstore -- db migrate) before starting.\n",
    );

    const server = await startProductionServer(
      await freePort(),
      { DATABASE_URL: behind.url, PETSTORE_SERVE: "api", MIGRATE_ON_START: "true" },
      90_000,
      SERVER,
    );
    try {
      expect(server.output()).toContain(`Applied migrations: ${latest}`);
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
