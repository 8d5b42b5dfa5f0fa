/**
 * The production folder (docs/operations.md "The production folder") runs with Node alone: a copy of it in a
 * temporary directory outside the repository, where nothing resolves from the repository's node_modules, migrates
 * a new PostgreSQL database and issues an API key with its CLI (`node cli.js`), and its server (`node server.js`)
 * answers /readyz, /v1 with that key, and a dashboard page from its Next process.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTemporaryDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/common.ts";
import { ensureBuild, PRODUCTION_FOLDER, runToExit, startProductionServer } from "./production-server.ts";

describe("the production folder", () => {
  let copy: string;
  let db: TemporaryDatabase;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    copy = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-production-"));
    [db] = await Promise.all([
      createTemporaryDatabase("petstore_folder"),
      fs.promises.cp(PRODUCTION_FOLDER, copy, { recursive: true, verbatimSymlinks: true }),
    ]);
  });
  afterAll(async () => {
    await db?.drop();
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it("migrates and issues a key with its CLI, then serves /v1 and the dashboard from a copy", async () => {
    const env = { DATABASE_URL: db.url, LOG_LEVEL: "error" };
    const migrate = await runToExit(["cli.js", "db", "migrate"], copy, env, 60_000);
    expect(migrate.stderr).toBe("");
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(/^Applied \d+ migration/);
    // The key is issued while the server starts: both only need the migrated database.
    const args = ["cli.js", "keys", "create", "--name", "folder", "--plan", "free", "--json"];
    const [created, server] = await Promise.all([
      runToExit(args, copy, env, 30_000),
      freePort().then((port) => startProductionServer(port, env, 60_000, "server.js", [], { cwd: copy })),
    ]);
    try {
      expect(created.code, created.stderr).toBe(0);
      const { key } = JSON.parse(created.stdout) as { key: string };

      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: "ok",
        checks: { database: { detail: "postgres" } },
      });

      const pets = await fetch(`${server.baseUrl}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
      expect(pets.status).toBe(200);
      expect(await pets.json()).toEqual([]);
      const anonymous = await fetch(`${server.baseUrl}/v1/pets`);
      await anonymous.body?.cancel();
      expect(anonymous.status).toBe(401);

      const page = await fetch(`${server.baseUrl}/admin/sign-in`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await page.text()).toMatch(/^<!DOCTYPE html>/i);
    } finally {
      await server.stop();
    }
  });
});
