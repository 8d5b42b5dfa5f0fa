/**
 * A transaction PostgreSQL aborts because of a concurrent one (here a real deadlock, 40P01) reaches the caller
 * as 409 `conflict` through the one error translator, never as 500, and writes nothing.
 */
import { loadConfig } from "@petstore/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseOf } from "../src/database/operations.ts";
import { translateError } from "../src/error-translator.ts";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

describe("write conflicts on PostgreSQL", () => {
  let database: TestDatabase;
  let rt: Runtime;
  beforeAll(async () => {
    database = await createTestDatabase("postgres", "petstore_conflicts");
    rt = await openRuntime({
      config: loadConfig({ LOG_LEVEL: "silent", ...database.env }),
      logger: createLogger("silent"),
    });
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  it("a deadlock is 409 conflict, and the aborted transaction wrote nothing", async () => {
    const { prisma } = databaseOf(rt);
    const [a, b] = await Promise.all([
      prisma.category.create({ data: { name: "deadlock a" } }),
      prisma.category.create({ data: { name: "deadlock b" } }),
    ]);
    let bothLockedFirst!: () => void;
    let arrived = 0;
    const barrier = new Promise<void>((resolve) => {
      bothLockedFirst = resolve;
    });
    /** Locks `first`, waits until the other transaction has locked its first row too, then wants `second`. */
    const crossing = (first: bigint, second: bigint, name: string) =>
      prisma.$transaction(async (tx) => {
        await tx.category.update({ where: { id: first }, data: { name: `${name} 1` } });
        if (++arrived === 2) bothLockedFirst();
        await barrier;
        await tx.category.update({ where: { id: second }, data: { name: `${name} 2` } });
      });
    const results = await Promise.allSettled([crossing(a.id, b.id, "left"), crossing(b.id, a.id, "right")]);

    const failures = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    expect(failures).toHaveLength(1);
    const { error, kind } = translateError(failures[0]);
    expect(error.status).toBe(409);
    expect(error.code).toBe("conflict");
    expect(kind).toBe("domain");

    const names = (await prisma.category.findMany({ where: { id: { in: [a.id, b.id] } } })).map(
      (c) => c.name,
    );
    const winner = names[0]?.split(" ")[0];
    expect(names.every((name) => name.startsWith(`${winner} `))).toBe(true);
  });
});
