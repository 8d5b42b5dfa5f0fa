/**
 * `petstore orders …` as an operator runs it (docs/contract.md section 5), called in this process (`main`) against
 * a migrated PostgreSQL database: list filters by status, account and animal (JSON or a table), complete and cancel
 * close a placed order and are audited under the operator's `cli:` actor, a closed order is refused with 409, and
 * bad input exits with 2 naming the option.
 */
import os from "node:os";
import { loadConfig } from "@petstore/config";
import { openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase, databaseOf, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBodyOf, petstore } from "./support.ts";

const ACTOR = `cli:${os.userInfo().username}`;

describe("petstore orders on PostgreSQL", () => {
  let db: TemporaryDatabase;
  let env: Record<string, string>;
  let rt: Runtime;
  let accountId: string;
  let keyId: string;
  let pets: number[];

  const place = (petId: number) => rt.orders.of({ accountId }).create({ petId }, { apiKeyId: keyId });
  const statusOf = async (petId: number) =>
    (await databaseOf(rt).prisma.pet.findUniqueOrThrow({ where: { id: BigInt(petId) } })).status;

  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_cli_orders");
    env = { DATABASE_URL: db.url };
    rt = await openRuntime({ config: loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: "silent" }) });
    const prisma = databaseOf(rt).prisma;
    const category = await prisma.category.create({ data: { name: "Dogs" } });
    pets = [];
    for (const name of ["Rex", "Bella", "Max"])
      pets.push(
        Number(
          (await prisma.pet.create({ data: { name, categoryId: category.id, status: "available" } })).id,
        ),
      );
    accountId = (
      await prisma.account.create({ data: { name: "Acme Pets", planName: "pro", createdBy: "test" } })
    ).id;
    keyId = (await rt.forAccount(accountId).keys.create({ name: "Shop key" }, "test")).id;
  });
  afterAll(async () => {
    await rt?.close();
    await db?.drop();
  });

  it("lists orders newest first, filtered by status, account and animal, as JSON or a table", async () => {
    const rex = await place(pets[0] as number);
    const bella = await place(pets[1] as number);
    const all = await petstore(["orders", "list", "--json"], env);
    expect(all).toMatchObject({ code: 0, stderr: "" });
    const rows = JSON.parse(all.stdout);
    expect(rows.map((o: { id: number }) => o.id)).toEqual([bella.id, rex.id]);
    expect(rows[1]).toMatchObject({
      petId: rex.petId,
      petName: "Rex",
      accountName: "Acme Pets",
      status: "placed",
    });
    const byPet = JSON.parse(
      (await petstore(["orders", "list", "--pet", String(rex.petId), "--json"], env)).stdout,
    );
    expect(byPet.map((o: { id: number }) => o.id)).toEqual([rex.id]);
    const byAccount = await petstore(["orders", "list", "--account", accountId, "--json"], env);
    expect(JSON.parse(byAccount.stdout)).toHaveLength(2);
    const other = await petstore(["orders", "list", "--account", crypto.randomUUID(), "--json"], env);
    expect(JSON.parse(other.stdout)).toEqual([]);
    expect(
      JSON.parse((await petstore(["orders", "list", "--status", "completed", "--json"], env)).stdout),
    ).toEqual([]);
    const table = (await petstore(["orders", "list"], env)).stdout;
    expect(table).toMatch(new RegExp(`${rex.id}.*'placed'.*'${rex.petId} Rex'.*'Acme Pets'`));
    expect((await petstore(["orders", "list", "--status", "expired"], env)).stdout).toBe(
      "No orders match.\n",
    );
    await rt.orders.cancel(rex.id, "test");
    await rt.orders.cancel(bella.id, "test");
  });

  it("completes and cancels a placed order, audited with the operator; repeating is answered alike", async () => {
    const sold = await place(pets[2] as number);
    const completed = await petstore(["orders", "complete", String(sold.id)], env);
    expect(completed).toMatchObject({ code: 0, stderr: "" });
    expect(completed.stdout).toBe(`Completed order ${sold.id}: animal ${sold.petId} is sold.\n`);
    expect(await statusOf(sold.petId)).toBe("sold");
    const again = await petstore(["orders", "complete", String(sold.id), "--json"], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: sold.id, status: "completed" });

    const held = await place(pets[0] as number);
    const cancelled = await petstore(["orders", "cancel", String(held.id), "--json"], env);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      id: held.id,
      status: "cancelled",
      closedAt: expect.any(String),
    });
    expect(await statusOf(held.petId)).toBe("available");

    const audits = await databaseOf(rt).prisma.auditLog.findMany({
      where: { entityType: "order", entityId: { in: [String(sold.id), String(held.id)] } },
      orderBy: { id: "asc" },
    });
    expect(audits.map((e) => [e.action, e.entityId, e.actor])).toEqual([
      ["order.complete", String(sold.id), ACTOR],
      ["order.cancel", String(held.id), ACTOR],
    ]);

    const refused = await petstore(["orders", "cancel", String(sold.id), "--json"], env);
    expect(refused.code).toBe(1);
    expect(errorBodyOf(refused)).toEqual({
      code: "conflict",
      status: 409,
      message: `Order ${sold.id} is completed: only a placed order can be cancelled.`,
    });
  });

  it("refuses bad input with exit code 2 naming the option, and an unknown order with 404", async () => {
    const status = await petstore(["orders", "list", "--status", "sold", "--json"], env);
    expect(status.code).toBe(2);
    expect(errorBodyOf(status)).toMatchObject({ code: "validation_failed", details: [{ path: "--status" }] });
    const account = await petstore(["orders", "list", "--account", "acme", "--json"], env);
    expect(errorBodyOf(account)).toMatchObject({ details: [{ path: "--account" }] });
    const pet = await petstore(["orders", "list", "--pet", "x1", "--json"], env);
    expect(errorBodyOf(pet)).toMatchObject({ details: [{ path: "--pet" }] });
    const id = await petstore(["orders", "complete", "7a", "--json"], env);
    expect(id.code).toBe(2);
    expect(errorBodyOf(id)).toMatchObject({ details: [{ path: "<id>" }] });
    expect((await petstore(["orders", "cancel"], env)).code).toBe(2);
    expect((await petstore(["orders", "ship", "1"], env)).code).toBe(2);
    const unknown = await petstore(["orders", "complete", "999999", "--json"], env);
    expect(unknown.code).toBe(1);
    expect(errorBodyOf(unknown)).toMatchObject({ code: "not_found", status: 404 });
  });
});
