/**
 * Demo accounts (ensureDemoAdmin, Runtime.firstStart): only on a fresh embedded database, never in production
 * or on PostgreSQL.
 */
import { loadConfig } from "@petstore/config";
import { createLogger, DEMO_ADMIN_EMAIL, ensureDemoAdmin, openRuntime, type Runtime } from "@petstore/core";
import { migrate } from "@petstore/core/migrate";
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { createCaller } from "../../src/server/trpc/router";

describe("ensureDemoAdmin", () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await openRuntime({
      config: loadConfig({ PGLITE_DIR: "memory://", LOG_LEVEL: "silent" }),
      logger: createLogger("silent"),
      prepare: migrate,
    });
  });
  afterAll(() => rt?.close());

  it("does nothing in production or on PostgreSQL, even with no users", async () => {
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

  it("creates a demo admin once on a fresh embedded database, whose credentials sign in", async () => {
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
});

describe("first start (Runtime.firstStart)", () => {
  const open = (env: Record<string, string> = {}) =>
    openRuntime({
      config: loadConfig({ PGLITE_DIR: "memory://", LOG_LEVEL: "silent", ...env }),
      logger: createLogger("silent"),
      prepare: migrate,
    });

  it("on a fresh embedded database: seeds, issues a working demo key and a demo admin, once", async () => {
    const rt = await open();
    try {
      const first = await rt.firstStart();
      expect(first.demoKey).toMatch(/^pet_test_/);
      expect(first.demoAdmin?.email).toBe(DEMO_ADMIN_EMAIL);
      expect((await rt.apiKeys.authenticate(first.demoKey ?? ""))?.plan).toBe("free");
      expect((await rt.categories.list()).length).toBeGreaterThan(0);
      expect(await rt.firstStart()).toEqual({});
      expect(await rt.users.count()).toBe(1);
    } finally {
      await rt.close();
    }
  });

  it("in production: creates nothing", async () => {
    const rt = await open({ PETSTORE_ENV: "production", METRICS_ENABLED: "false" });
    try {
      expect(await rt.firstStart()).toEqual({});
      expect(await rt.users.count()).toBe(0);
      expect(await rt.categories.list()).toEqual([]);
    } finally {
      await rt.close();
    }
  });
});
