/**
 * `@petstore/client` against the REST app over real HTTP, in-process (test/support/harness.ts: the REST fetch
 * handler mounted as server.ts mounts it) on PostgreSQL (reached through a proxy the test can cut) and Redis,
 * with `Date` frozen where a rate-limit window must turn: paging through 250 animals, getPet and typed errors,
 * retries through a forced 429 and a cut database (503), no retry of a ban that outlasts the budget, and one
 * animal created although a timed-out createPet was retried (a proxy holds its reply back), the store section
 * (an order placed, listed, completed; a change with the ETag createPet gave; the inventory). The packed client
 * against the production server: packed-client.test.ts.
 */
import { randomUUID } from "node:crypto";
import {
  createPetStoreClient,
  type PetStatus,
  type PetStoreClientOptions,
  PetStoreError,
} from "@petstore/client";
import { createMigratedDatabase, databaseOf, sleep, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deleteKeys, freezeAt, frozenNoon, REDIS_URL } from "../ratelimit/support.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";

const PREFIX = `petstore-test:client:${process.pid}:${randomUUID().slice(0, 8)}`;

interface Seen {
  url: string;
  status: number;
  retryAfter: string | null;
  requestId: string | null;
  replayed: string | null;
}

describe("@petstore/client against the REST API", () => {
  let db: TemporaryDatabase;
  let server: TestServer | undefined;
  const database = new TcpProxy(5432);
  let api: TcpProxy;
  let categoryId: number;
  let key: string;

  /** A client on `baseUrl` (default: the server) whose requests and waits are recorded. */
  function recordingClient(options: Partial<PetStoreClientOptions> = {}) {
    const seen: Seen[] = [];
    const waits: number[] = [];
    const client = createPetStoreClient({
      baseUrl: `${server?.baseUrl}/v1`,
      apiKey: key,
      fetch: async (request) => {
        const response = await fetch(request);
        seen.push({
          url: request.url,
          status: response.status,
          retryAfter: response.headers.get("retry-after"),
          requestId: response.headers.get("x-request-id"),
          replayed: response.headers.get("idempotent-replayed"),
        });
        return response;
      },
      sleep: async (ms) => {
        waits.push(ms);
        await sleep(ms);
      },
      ...options,
    });
    return { client, seen, waits };
  }

  const issueKey = async (perMinute: number) =>
    (
      await (server as TestServer).rt.apiKeys.create(
        { name: `client ${perMinute}/min`, plan: "enterprise", perMinute, perDay: 100_000 },
        "test",
      )
    ).key;

  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_client");
    await database.open();
    const url = new URL(db.url);
    url.port = String(database.port);
    server = await startTestServer("postgres", {
      env: {
        DATABASE_URL: url.toString(),
        REDIS_URL,
        RATE_LIMIT_PREFIX: PREFIX,
        // A key denied more than 3 times within the ban window is banned (default 30), for the ban test.
        BAN_THRESHOLD: "3",
      },
      migrated: true,
    });
    api = new TcpProxy(Number(new URL(server.baseUrl).port));
    await api.open();
    key = await issueKey(100_000);
    categoryId = server.categoryIds[0] as number;
    // The reference and demo data, as a deployment has them.
    await server.rt.seed();
    expect((await recordingClient().client.listPets({ limit: 1 })).pets).toHaveLength(1);
  });

  afterAll(async () => {
    vi.useRealTimers();
    await api?.cut();
    await server?.close();
    await database.cut();
    await db?.drop();
    await deleteKeys(PREFIX);
  });

  it("walks every page of 250+ animals, each exactly once, including ones added meanwhile", async () => {
    const status: PetStatus = "sold";
    const rt = (server as TestServer).rt;
    for (let i = 0; i < 250; i++) await rt.pets.create({ name: `Paged ${i}`, categoryId, status });
    const { client, seen } = recordingClient();
    const ids: number[] = [];
    for await (const pet of client.pets.all({ status, limit: 20 })) {
      expect(pet.status).toBe(status);
      ids.push(pet.id);
      // Added after the first page: higher ids, so they come on a later page.
      if (ids.length === 20)
        for (let i = 0; i < 3; i++) await rt.pets.create({ name: `Late ${i}`, categoryId, status });
    }
    const expected = (
      await databaseOf(rt).prisma.pet.findMany({ where: { status }, orderBy: { id: "asc" } })
    ).map((p) => Number(p.id));
    expect(expected.length).toBeGreaterThanOrEqual(253);
    expect(ids).toEqual(expected);
    expect(seen).toHaveLength(Math.ceil(expected.length / 20));
    expect(seen.every((s) => s.status === 200 && s.url.startsWith(server?.baseUrl ?? "-"))).toBe(true);
    expect(client.rateLimit).toMatchObject({ limit: 100_000, remaining: expect.any(Number) });
  });

  it("fetches one animal with the deprecated getPet, and throws typed errors with the request id", async () => {
    const { client, seen } = recordingClient();
    const [first] = (await client.listPets({ limit: 1 })).pets;
    if (!first) throw new Error("no animal");
    expect(await client.getPet(first.id)).toEqual(first);

    const missing = (await client.getPet(999_999_999).catch((e: unknown) => e)) as PetStoreError;
    expect(missing).toBeInstanceOf(PetStoreError);
    expect(missing).toMatchObject({ code: "not_found", status: 404, attempts: 1 });
    expect(missing.requestId).toBe(seen.at(-1)?.requestId);
    expect(missing.requestId).toBeTruthy();

    const invalid = (await client
      .createPet({ name: " ", categoryId })
      .catch((e: unknown) => e)) as PetStoreError;
    expect(invalid).toMatchObject({ code: "validation_failed", status: 400 });
    expect(invalid.details?.map((d) => d.path)).toContain("name");

    const stranger = recordingClient({ apiKey: "pet_test_notakey" }).client;
    await expect(stranger.listPets()).rejects.toMatchObject({ code: "unauthorized", status: 401 });
  });

  it("orders an animal, lists, completes it, changes an animal by its ETag and reads the inventory", async () => {
    const { client } = recordingClient();
    const { pet, etag } = await client.createPet({
      name: `Orderable ${randomUUID()}`,
      categoryId,
      status: "available",
    });
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const renamed = await client.pets.update(pet.id, { name: "Renamed by tag" }, { ifMatch: etag });
    expect(renamed.pet).toMatchObject({ id: pet.id, name: "Renamed by tag" });
    const stale = await client.pets
      .update(pet.id, { name: "Late" }, { ifMatch: etag })
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: "precondition_failed", status: 412 });
    const before = await client.inventory();
    const { order, replayed } = await client.orders.create({ petId: pet.id, holdMinutes: 10 });
    expect({ status: order.status, petId: order.petId, replayed }).toEqual({
      status: "placed",
      petId: pet.id,
      replayed: false,
    });
    const taken = await client.orders.create({ petId: pet.id }).catch((e: unknown) => e);
    expect(taken).toMatchObject({ code: "conflict", status: 409, attempts: 1 });
    expect((await client.orders.list({ petId: pet.id })).orders).toEqual([order]);
    expect(await client.orders.get(order.id)).toEqual(order);
    const completed = await client.orders.complete(order.id);
    expect(completed).toMatchObject({ id: order.id, status: "completed" });
    expect(await client.orders.complete(order.id)).toEqual(completed);
    expect(await client.inventory()).toEqual({
      ...before,
      available: before.available - 1,
      sold: before.sold + 1,
    });
    const ids: number[] = [];
    for await (const o of client.orders.all({ status: "completed", limit: 1 })) ids.push(o.id);
    expect(ids).toContain(order.id);
  });

  it("creates one animal although the first createPet timed out and was retried", async () => {
    const name = `Timeout ${randomUUID()}`;
    // The server answers at once; the proxy holds that reply back for 6 s, past the client's 2 s limit.
    api.delayReplies(6_000, 1);
    const before = api.connections;
    const { client, seen, waits } = recordingClient({
      baseUrl: `http://127.0.0.1:${api.port}/v1`,
      timeoutMs: 2_000,
    });
    const { pet: created, replayed } = await client.createPet({ name, categoryId, status: "available" });
    expect(api.connections - before).toBeGreaterThanOrEqual(2);
    expect(waits.length).toBeGreaterThanOrEqual(1);
    // The answer that got through replays the first attempt's creation, and the client says so.
    expect(seen.at(-1)).toMatchObject({ status: 201, replayed: "true" });
    expect(replayed).toBe(true);
    const rows = await databaseOf((server as TestServer).rt).prisma.pet.findMany({ where: { name } });
    expect(rows.map((r) => Number(r.id))).toEqual([created.id]);
  });

  it("retries through a cut database (503), honouring Retry-After, and gives up when that outlasts the budget", async () => {
    const { client: warm } = recordingClient();
    await warm.listPets({ limit: 1 });
    await database.cut();
    try {
      const impatient = recordingClient({ retry: { maxDelayMs: 1_000 }, timeoutMs: 10_000 });
      const error = (await impatient.client.listPets().catch((e: unknown) => e)) as PetStoreError;
      expect(error).toMatchObject({ code: "service_unavailable", status: 503, attempts: 1 });
      expect(error.retryAfter).toBe(Number(impatient.seen[0]?.retryAfter));
      expect(impatient.waits).toEqual([]);

      const { client, seen, waits } = recordingClient({
        // The database comes back while the client waits.
        sleep: async (ms) => {
          waits.push(ms);
          await database.open();
        },
      });
      const page = await client.listPets({ limit: 5 });
      expect(page.pets).toHaveLength(5);
      // A pooled connection the cut killed may fail one more attempt after the database is back.
      const failed = seen.slice(0, -1);
      expect(failed.length).toBeGreaterThanOrEqual(1);
      expect(failed.every((s) => s.status === 503)).toBe(true);
      expect(seen.at(-1)?.status).toBe(200);
      expect(waits).toEqual(failed.map((s) => Number(s.retryAfter) * 1000));
    } finally {
      await database.open().catch(() => undefined);
    }
  });

  it("waits out a forced 429 for its Retry-After, then succeeds in the next window", async () => {
    // The window buckets and the server's clock follow `Date`: frozen 10 s into a minute, moved by the client's
    // waits instead of waiting them out.
    const started = freezeAt(frozenNoon());
    try {
      const { client, seen, waits } = recordingClient({
        apiKey: await issueKey(3),
        sleep: async (ms) => {
          waits.push(ms);
          vi.setSystemTime(Date.now() + ms);
        },
      });
      for (const remaining of [2, 1, 0]) {
        await client.listPets({ limit: 1 });
        expect(client.rateLimit?.remaining).toBe(remaining);
      }
      const exhaustedWindowReset = client.rateLimit?.reset ?? 0;
      expect((await client.listPets({ limit: 1 })).pets).toHaveLength(1);
      expect(seen.map((s) => s.status)).toEqual([200, 200, 200, 429, 200]);
      const retryAfter = Number(seen[3]?.retryAfter);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(waits).toEqual([retryAfter * 1000]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(retryAfter * 1000);
      expect(client.rateLimit?.remaining).toBe(2);
      expect(client.rateLimit?.reset).toBeGreaterThan(exhaustedWindowReset);
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not retry a key_banned whose Retry-After outlasts the budget", async () => {
    const banned = await issueKey(1);
    for (let i = 0; i < 6; i++)
      await fetch(`${server?.baseUrl}/v1/pets?limit=1`, {
        headers: { authorization: `Bearer ${banned}` },
      });
    const { client, seen, waits } = recordingClient({ apiKey: banned });
    const error = (await client.listPets().catch((e: unknown) => e)) as PetStoreError;
    expect(error).toMatchObject({ code: "key_banned", status: 429, attempts: 1 });
    // BAN_BASE_SECONDS defaults to 900: far past the 60 s default budget.
    expect(error.retryAfter).toBeGreaterThan(60);
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(client.rateLimit?.remaining).toBe(0);
  });
});
