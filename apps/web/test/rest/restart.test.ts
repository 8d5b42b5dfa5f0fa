/**
 * Durability across a restart (docs/contract.md section 5): a server started again on the same database (an
 * embedded PGlite folder given as PGLITE_DIR, or the same PostgreSQL database) still has the animals,
 * keys and idempotency records of the first run, and keeps assigning increasing ids; and a hold that lapsed
 * while no server ran is expired by the sweep at start (docs/contract.md section 1, "Holds that lapse"), with its
 * events, on an injected clock.
 */
import {
  createMigratedDatabase,
  createMigratedPGliteDir,
  databaseOf,
  type TemporaryDatabase,
  type TemporaryPGliteDir,
} from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUp } from "../../src/server/bootstrap.ts";
import { type DatabaseKind, startTestServer, type TestServer } from "../support/harness.ts";
import { type Order, placeOrder } from "./store-support.ts";
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

  async function start(now?: Date): Promise<Ctx> {
    const s = await startTestServer(kind, { env, migrated: true, ...(now ? { now } : {}) });
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

  it("expires a hold that lapsed while no server ran, at the next start, with order.expired and pet.updated", async () => {
    // The embedded database is opened by one runtime at a time.
    for (const s of open.splice(0)) await s.close();
    const placedAt = new Date("2026-11-29T10:00:00.000Z");
    const first = await start(placedAt);
    const { prisma } = databaseOf(first.s.rt);
    await prisma.webhookEndpoint.create({
      data: {
        // Disabled: its events are stored, and startUp's dispatcher sends nothing anywhere.
        enabled: false,
        url: "https://store.example/hooks",
        eventTypes: ["order.expired", "pet.updated"],
        secret: "whsec_x",
        createdBy: "test",
      },
    });
    const pet = await prisma.pet.create({
      data: { name: "Held over", categoryId: BigInt(first.s.categoryIds[0] ?? 1), status: "available" },
    });
    const placed = await placeOrder(first, { petId: Number(pet.id), holdMinutes: 5 });
    expect(placed.status).toBe(201);
    const order = placed.body as Order;
    await first.s.close();
    open.pop();

    // Started again after the hold lapsed: the start-up sweep (bootstrap.ts) expires it before anything is served.
    const second = await start(new Date(placedAt.getTime() + 6 * 60_000));
    await startUp(second.s.rt, { human: true, line: () => {} });
    const after = databaseOf(second.s.rt).prisma;
    expect(await after.order.findUniqueOrThrow({ where: { id: BigInt(order.id) } })).toMatchObject({
      status: "expired",
      closedAt: new Date(order.holdUntil),
    });
    expect((await after.pet.findUniqueOrThrow({ where: { id: pet.id } })).status).toBe("available");
    const events = await after.webhookEvent.findMany({ orderBy: { id: "asc" } });
    const [held, ...released] = events.map((e) => [e.type, JSON.parse(e.data)]);
    expect(held).toEqual([
      "pet.updated",
      {
        id: Number(pet.id),
        name: "Held over",
        categoryId: Number(pet.categoryId),
        status: "pending",
        previous: { status: "available" },
      },
    ]);
    // One statement writes the expiry's two events: their ids follow no promised order (docs/contract.md section 6).
    expect(released.sort(([a], [b]) => String(a).localeCompare(String(b)))).toEqual([
      ["order.expired", { ...order, status: "expired", closedAt: order.holdUntil }],
      [
        "pet.updated",
        {
          id: Number(pet.id),
          name: "Held over",
          categoryId: Number(pet.categoryId),
          status: "available",
          previous: { status: "pending" },
        },
      ],
    ]);
  });
});
