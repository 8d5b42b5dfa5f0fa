/** ensureDemoAdmin: a demo admin on a fresh embedded database, never in production or on PostgreSQL. */
import { loadConfig } from "@petstore/config";
import { createLogger, DEMO_ADMIN_EMAIL, ensureDemoAdmin, openRuntime, type Runtime } from "@petstore/core";
import { deployMigrations } from "@petstore/db/migrate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { createCaller } from "../../src/server/trpc/router";

describe("ensureDemoAdmin", () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await openRuntime({
      config: loadConfig({ PGLITE_DIR: "memory://", LOG_LEVEL: "silent" }),
      logger: createLogger("silent"),
      prepare: deployMigrations,
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
    const audit = await rt.db.prisma.auditLog.findFirst({ where: { action: "user.create" } });
    expect(audit?.actor).toBe("system:bootstrap");
  });
});
