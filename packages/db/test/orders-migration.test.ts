/**
 * Migration orders on a database with data (docs/contract.md section 2, "Scopes"; section 1, "The store section"):
 * keys that held both pets scopes get both orders scopes and a key narrowed to one keeps exactly it, the inventory's
 * counts start from the animals there are, and the usage rows of the 501 `store.orders` become listOrders'.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deployMigrations } from "../src/migrate/index.ts";
import { repoMigrationNames, useMigrationFixture } from "./helpers.ts";

const ORDERS = repoMigrationNames().find((n) => n.endsWith("_orders"));
const ALL = ["pets:read", "pets:write", "orders:read", "orders:write"];

describe.each([
  ["PostgreSQL", "postgres"],
  ["PGlite", "pglite"],
] as const)("orders on %s", (_label, kind) => {
  const fx = useMigrationFixture(kind, ORDERS);

  it("gives the orders scopes to keys that held both pets scopes, counts the animals, renames store.orders", async () => {
    await deployMigrations(fx.db, { paths: { migrationsDir: fx.before } });
    const { prisma } = fx.db;
    // The rows of the schema before the migration are written in SQL: the client knows today's columns only.
    await prisma.$executeRaw`INSERT INTO "Plan" (name, "updatedAt") VALUES ('free', now())`;
    const earlierKey = async (name: string, scopes: string[]) => {
      const id = randomUUID();
      await prisma.$executeRaw`INSERT INTO "ApiKey" (id, hash, prefix, name, "planName", environment, "createdBy", scopes)
        VALUES (${id}::uuid, ${randomUUID()}, ${name}, ${name}, 'free', 'staging', 't', ${scopes})`;
      return { id };
    };
    const key = (name: string, scopes: string[]) =>
      prisma.apiKey.create({
        data: {
          hash: randomUUID(),
          prefix: name,
          name,
          planName: "free",
          environment: "staging",
          createdBy: "t",
          scopes,
        },
      });
    const both = await earlierKey("both", ["pets:read", "pets:write"]);
    const reader = await earlierKey("reader", ["pets:read"]);
    const writer = await earlierKey("writer", ["pets:write"]);
    const category = await prisma.category.create({ data: { name: "dogs" } });
    await prisma.pet.createMany({
      data: (["available", "available", "pending", "sold", null] as const).map((status, i) => ({
        name: `pet ${i}`,
        categoryId: category.id,
        status,
      })),
    });
    const hour = new Date("2026-11-28T10:00:00Z");
    await prisma.usageHour.create({
      data: { apiKeyId: both.id, hour, operation: "store.orders", outcome: "5xx", requests: 3, latency: [] },
    });

    await deployMigrations(fx.db, { paths: { migrationsDir: fx.all } });
    const scopes = async (id: string) => (await prisma.apiKey.findUniqueOrThrow({ where: { id } })).scopes;
    expect(await scopes(both.id)).toEqual(ALL);
    expect(await scopes(reader.id)).toEqual(["pets:read"]);
    expect(await scopes(writer.id)).toEqual(["pets:write"]);
    expect((await key("new", undefined as never)).scopes).toEqual(ALL);
    await expect(key("bad", ["orders:admin"])).rejects.toThrow();
    const counts = await prisma.$queryRaw<{ status: string; n: number }[]>`
      SELECT "status", sum("n")::int AS "n" FROM "PetStatusCount" GROUP BY "status" ORDER BY "status"`;
    expect(counts).toEqual([
      { status: "available", n: 2 },
      { status: "pending", n: 1 },
      { status: "sold", n: 1 },
      { status: "unset", n: 1 },
    ]);
    expect((await prisma.usageHour.findMany()).map((u) => u.operation)).toEqual(["listOrders"]);
  });
});
