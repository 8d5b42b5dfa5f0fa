/**
 * Demo accounts (ensureDemoAdmin, Runtime.firstStart): only on a fresh embedded database, never in production
 * or on PostgreSQL. One embedded database (a copy of the migrated PGlite template) serves the file: the tests
 * run in order, each on what the one before left, and the last empties the users table again to start afresh.
 */
import { loadConfig } from "@petstore/config";
import {
  createLogger,
  DEMO_ADMIN_EMAIL,
  ensureDemoAdmin,
  openRuntime,
  type Runtime,
  setUpFirstStart,
} from "@petstore/core";
import { createMigratedPGliteDir, databaseOf, type TemporaryPGliteDir } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { createCaller } from "../../src/server/trpc/router";
import { TEST_PASSWORD_HASH_COST } from "./support";

describe("demo accounts on the embedded database", () => {
  let folder: TemporaryPGliteDir;
  let rt: Runtime;
  beforeAll(async () => {
    folder = await createMigratedPGliteDir("petstore_demo_admin");
    rt = await openRuntime({
      config: loadConfig({
        PGLITE_DIR: folder.dir,
        LOG_LEVEL: "silent",
        PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
      }),
      logger: createLogger("silent"),
    });
  });
  afterAll(async () => {
    await rt?.close();
    await folder?.remove();
  });

  it("ensureDemoAdmin does nothing in production or on PostgreSQL, even with no users", async () => {
    expect(rt.config.database.kind).toBe("pglite");
    expect(
      await ensureDemoAdmin({ config: { ...rt.config, environment: "production" }, users: rt.users }),
    ).toBeUndefined();
    expect(
      await ensureDemoAdmin({
        config: { ...rt.config, database: { kind: "postgres", url: "postgres://x/y" } },
        users: rt.users,
      }),
    ).toBeUndefined();
    expect(await rt.users.count()).toBe(0);
  });

  it("a first start in production creates nothing", async () => {
    const production = { ...rt.config, environment: "production" as const };
    expect(
      await setUpFirstStart(
        { prisma: databaseOf(rt).prisma, config: production },
        { database: { seed: rt.seed }, apiKeys: rt.apiKeys, users: rt.users },
      ),
    ).toEqual({});
    expect(await rt.users.count()).toBe(0);
    expect(await rt.categories.list()).toEqual([]);
  });

  it("ensureDemoAdmin creates a demo admin once on a fresh embedded database, whose credentials sign in", async () => {
    const created = await ensureDemoAdmin(rt);
    expect(created?.email).toBe(DEMO_ADMIN_EMAIL);
    expect(created?.password).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(await ensureDemoAdmin(rt)).toBeUndefined();
    const caller = createCaller(await createInnerContext({ rt }));
    const { user } = await caller.auth.signIn({ email: DEMO_ADMIN_EMAIL, password: created?.password ?? "" });
    expect(user.role).toBe("admin");
    const audit = await databaseOf(rt).prisma.auditLog.findFirst({ where: { action: "user.create" } });
    expect(audit?.actor).toBe("system:bootstrap");
  });

  it("the first start on a fresh embedded database seeds, issues a working demo key and a demo admin, once", async () => {
    // Fresh again: no user (the one above is removed), no API key, no data.
    const prisma = databaseOf(rt).prisma;
    await prisma.session.deleteMany();
    await prisma.user.deleteMany();
    expect(await prisma.apiKey.count()).toBe(0);
    const first = await rt.firstStart();
    expect(first.demoKey).toMatch(/^pet_test_/);
    expect(first.demoAdmin?.email).toBe(DEMO_ADMIN_EMAIL);
    expect((await rt.apiKeys.authenticate(first.demoKey ?? ""))?.plan).toBe("free");
    expect((await rt.categories.list()).length).toBeGreaterThan(0);
    expect(await rt.firstStart()).toEqual({});
    expect(await rt.users.count()).toBe(1);
  });
});
