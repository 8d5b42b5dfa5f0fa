/**
 * What the petstore command checks before it touches a database: a PostgreSQL database whose migrations are behind
 * the build is refused with exit code 2 naming `petstore db migrate` (which fixes it); an embedded database folder
 * the server holds is refused with exit code 2 and a line naming the folder (never a key printed whose write then
 * vanishes), and served again once the server has closed it.
 */
import { loadConfig } from "@petstore/config";
import { openRuntime, type Runtime } from "@petstore/core";
import {
  createDatabaseBehind,
  createMigratedPGliteDir,
  type DatabaseBehind,
  type TemporaryPGliteDir,
} from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBodyOf, petstore } from "./support.ts";

describe("petstore on a PostgreSQL database behind the build", () => {
  let db: DatabaseBehind;
  beforeAll(async () => {
    db = await createDatabaseBehind("petstore_cli_behind");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("refuses a command with exit code 2 naming `petstore db migrate`, which fixes it", async () => {
    const env = { DATABASE_URL: db.url };
    const refused = await petstore(["keys", "create", "--name", "Early", "--plan", "free", "--json"], env);
    expect(refused.code).toBe(2);
    const body = errorBodyOf(refused);
    expect(body).toMatchObject({ code: "validation_failed", details: [{ path: "DATABASE_URL" }] });
    expect(body.message).toContain(db.latest);
    expect(body.message).toContain("run `npm run petstore -- db migrate`");

    const migrated = await petstore(["db", "migrate"], env);
    expect(migrated.stderr).toBe("");
    expect(migrated.stdout).toContain(db.latest);
    const created = await petstore(["keys", "create", "--name", "Later", "--plan", "free", "--json"], env);
    expect(created.code).toBe(0);
  });
});

describe("petstore on an embedded database the server holds", () => {
  let folder: TemporaryPGliteDir;
  let server: Runtime | undefined;
  beforeAll(async () => {
    folder = await createMigratedPGliteDir("petstore_cli_lock");
    server = await openRuntime({ config: loadConfig({ PGLITE_DIR: folder.dir, LOG_LEVEL: "silent" }) });
  });
  afterAll(async () => {
    await server?.close();
    await folder?.remove();
  });

  it("refuses every command with exit code 2 while the server runs, then works once it stopped", async () => {
    const env = { PGLITE_DIR: folder.dir };
    const create = await petstore(["keys", "create", "--name", "Lost", "--plan", "free"], env);
    expect(create.code).toBe(2);
    expect(create.stdout).toBe("");
    expect(create.stderr).toBe(
      `petstore: The embedded database ${folder.dir} is open in another process (\`npm start\`, or another ` +
        "`petstore` command): stop it first, or point DATABASE_URL at PostgreSQL to share a database between processes " +
        "(the lock of a process that ended without closing it expires 30 s after it).\n",
    );
    const json = await petstore(["keys", "create", "--name", "Lost", "--plan", "free", "--json"], env);
    expect(json.code).toBe(2);
    expect(errorBodyOf(json)).toMatchObject({ code: "validation_failed", details: [{ path: "PGLITE_DIR" }] });
    const migrate = await petstore(["db", "migrate"], env);
    expect(migrate.code).toBe(2);
    expect(migrate.stderr).toContain("is open in another process");

    await server?.close();
    server = undefined;
    const created = await petstore(["keys", "create", "--name", "Kept", "--plan", "free", "--json"], env);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const listed = await petstore(["keys", "list", "--json"], env);
    expect(JSON.parse(listed.stdout).map((k: { name: string }) => k.name)).toEqual(["Kept"]);
  });
});
