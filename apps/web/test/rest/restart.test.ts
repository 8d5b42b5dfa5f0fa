/**
 * Durability across a restart (docs/contract.md section 5): a server started again on the same database (an
 * embedded PGlite folder given as PGLITE_DIR, or the same PostgreSQL database) still has the animals,
 * keys and idempotency records of the first run, and keeps assigning increasing ids.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTemporaryDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS, startTestServer, type TestServer } from "../support/harness.ts";
import { OpenApiResponseValidator } from "../support/openapi-validator.ts";
import { type Ctx, makeCtx } from "./support.ts";

type Animal = { id: number; name: string; categoryId: number; status?: string };

describe.each(DATABASE_KINDS)("restart (%s)", (kind) => {
  let dir = "";
  let database: TemporaryDatabase | undefined;
  let env: Record<string, string> = {};
  const open: TestServer[] = [];

  beforeAll(async () => {
    if (kind === "pglite") {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-restart-"));
      env = { PGLITE_DIR: dir };
    } else {
      database = await createTemporaryDatabase("petstore_rest_restart");
      env = { DATABASE_URL: database.url };
    }
  });

  afterAll(async () => {
    for (const s of open) await s.close().catch(() => undefined);
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<Ctx> {
    const s = await startTestServer(kind, { env });
    open.push(s);
    const doc = (await (await fetch(`${s.baseUrl}/v1/openapi.json`)).json()) as Record<string, unknown>;
    return makeCtx(s, new OpenApiResponseValidator(doc), doc);
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
