/**
 * The server process refuses a database that does not hold its build's migrations (docs/operations.md
 * "Migrations"): on a PostgreSQL database missing the latest migration, or an empty one, it exits with code 2 and
 * one line naming the fix, without listening; with MIGRATE_ON_START=true it applies the missing migration and
 * serves. A database it cannot reach is one line and exit code 1. The API role's server, as built.
 */
import {
  createDatabaseBehind,
  createTemporaryDatabase,
  type DatabaseBehind,
  type TemporaryDatabase,
} from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/common.ts";
import { ensureBuild, runServerToExit, startProductionServer } from "./production-server.ts";

describe("server start-up on a database behind the build", () => {
  let behind: DatabaseBehind;
  let empty: TemporaryDatabase;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    [behind, empty] = await Promise.all([
      createDatabaseBehind("petstore_start_behind"),
      createTemporaryDatabase("petstore_start_empty"),
    ]);
  });
  afterAll(async () => {
    await behind?.drop();
    await empty?.drop();
  });

  it("exits 1 with one line when the database cannot be reached", async () => {
    const unreachable = await runServerToExit({
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${await freePort()}/test`,
      PETSTORE_SERVE: "api",
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout).toBe("");
    expect(unreachable.stderr).toMatch(/^The database cannot be reached to check its migrations: [^\n]+\n$/);
  });

  it("exits 2 with one line naming the fix, and with MIGRATE_ON_START=true migrates and serves", async () => {
    const [pending, blank] = await Promise.all([
      runServerToExit({ DATABASE_URL: behind.url, PETSTORE_SERVE: "api" }),
      runServerToExit({ DATABASE_URL: empty.url, PETSTORE_SERVE: "api" }),
    ]);
    expect(pending.code).toBe(2);
    expect(pending.stdout).toBe("");
    expect(pending.stderr).toBe(
      `The database lacks 1 migration(s) of this build (${behind.latest}): run \`npm run petstore -- db migrate\`, ` +
        "or start with MIGRATE_ON_START=true.\n",
    );
    expect(blank.code).toBe(2);
    expect(blank.stderr).toBe(
      "The database is empty: run `npm run petstore -- db migrate` before starting.\n",
    );

    const server = await startProductionServer(await freePort(), {
      DATABASE_URL: behind.url,
      PETSTORE_SERVE: "api",
      MIGRATE_ON_START: "true",
    });
    try {
      expect(server.output()).toContain(`Applied migrations: ${behind.latest}`);
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
