/**
 * Durability across a restart (docs/contract.md section 5): a server started again on the same database (an
 * embedded PGlite folder given as PGLITE_DIR, or the same PostgreSQL database) still has the animals,
 * keys and idempotency records of the first run, and keeps assigning increasing ids.
 */
import {
  createMigratedDatabase,
  createMigratedPGliteDir,
  type TemporaryDatabase,
  type TemporaryPGliteDir,
} from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseKind, startTestServer, type TestServer } from "../support/harness.ts";
import { type Ctx, ctxFor } from "./support.ts";

type Animal = { id: number; name: string; categoryId: number; status?: string };

// The subject is the database itself: both kinds keep this suite.
describe.each(["postgres", "pglite"] as DatabaseKind[])("restart (%s)", (kind) => {
  let dir = "";
  let folder: TemporaryPGliteDir | undefined;
  let database: TemporaryDatabase | undefined;
  let env: Record<string, string> = {};
  const open: TestServer[] = [];

  beforeAll(async () => {
    if (kind === "pglite") {
      folder = await createMigratedPGliteDir("petstore-restart");
      dir = folder.dir;
      env = { PGLITE_DIR: dir };
    } else {
      database = await createMigratedDatabase("petstore_rest_restart");
      env = { DATABASE_URL: database.url };
    }
  });

  afterAll(async () => {
    for (const s of open) await s.close().catch(() => undefined);
    await database?.drop();
    await folder?.remove();
  });

  async function start(): Promise<Ctx> {
    const s = await startTestServer(kind, { env, migrated: true });
    open.push(s);
    return ctxFor(s);
  }

  it("keeps animals, keys and idempotency records across a restart", async () => {
    const first = await start();
    if (kind === "pglite") expect(first.s.rt.config.database).toEqual({ kind: "pglite", dir });
    const created = await first.create(
      { name: "Survivor", categoryId: first.s.categoryIds[2], status: "sold" },
      { "idempotency-key": "restart-1" },
    );
    expect(created.status).toBe(201);
    const animal = created.body as Animal;
    const firstKey = first.s.key;
    await first.s.close();
    open.pop();

    const second = await start();
    expect(second.s.categoryIds).toEqual(first.s.categoryIds);
    const fetched = await second.call("getPet", `/v1/pets/${animal.id}`, { headers: second.auth() });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(animal);
    const listed = await second.call("listPets", "/v1/pets?status=sold", { headers: second.auth() });
    expect(listed.body).toEqual([animal]);
    // The first run's key still works, and its Idempotency-Key is still remembered.
    const replay = await second.create(
      { name: "Survivor", categoryId: first.s.categoryIds[2], status: "sold" },
      { ...second.auth(firstKey), "idempotency-key": "restart-1" },
    );
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(animal);
    const next = await second.create({ name: "After restart", categoryId: second.s.categoryIds[0] });
    expect((next.body as Animal).id).toBeGreaterThan(animal.id);
    expect(await second.petCount()).toBe(2);
  });
});
