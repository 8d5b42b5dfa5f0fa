/**
 * POST /v1/pets (createPet): 201 with Location, strict NewPet validation, the JSON body gate (415, 413,
 * invalid JSON), Idempotency-Key replay / 422 / per-key scope / header validation, and that a rejected
 * request never creates a row.
 */
import { fingerprintBody } from "@petstore/core";
import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { type CallResult, type Ctx, expectError, rawRequest, useServer } from "./support.ts";

type Animal = { id: number; name: string; categoryId: number; status?: string };

/** Runs `request` and asserts it created no animal. */
async function noRowCreated(t: Ctx, request: () => Promise<CallResult>): Promise<CallResult> {
  const before = await t.petCount();
  const r = await request();
  expect(await t.petCount()).toBe(before);
  return r;
}

describe("createPet (postgres)", () => {
  const t = useServer("postgres");
  const cat = () => t.s.categoryIds[1] ?? 2;

  it("creates an animal: 201, Location and the Animal body", async () => {
    const before = await t.petCount();
    const r = await t.create({ name: "Rex", categoryId: cat(), status: "available" });
    expect(r.status).toBe(201);
    const animal = r.body as Animal;
    expect(animal).toEqual({ id: expect.any(Number), name: "Rex", categoryId: cat(), status: "available" });
    expect(r.headers.get("location")).toBe(`https://api.test.example/v1/pets/${animal.id}`);
    expect(r.headers.get("idempotent-replayed")).toBeNull();
    expect(await t.petCount()).toBe(before + 1);
    const stored = await databaseOf(t.s.rt).prisma.pet.findUniqueOrThrow({
      where: { id: BigInt(animal.id) },
    });
    expect({ name: stored.name, categoryId: Number(stored.categoryId), status: stored.status }).toEqual({
      name: "Rex",
      categoryId: cat(),
      status: "available",
    });
    const fetched = await t.call("getPet", `/v1/pets/${animal.id}`, { headers: t.auth() });
    expect(fetched.body).toEqual(animal);
  });

  it("omits status in the body when none is given", async () => {
    const r = await t.create({ name: "Nostatus", categoryId: cat() });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body as object).sort()).toEqual(["categoryId", "id", "name"]);
  });

  it.each(["available", "pending", "sold"])("accepts status %s", async (status) => {
    const r = await t.create({ name: "S", categoryId: cat(), status });
    expect(r.status).toBe(201);
    expect((r.body as Animal).status).toBe(status);
  });

  it("assigns increasing ids", async () => {
    const seen: number[] = [];
    for (let i = 0; i < 5; i++)
      seen.push(((await t.create({ name: `n${i}`, categoryId: cat() })).body as Animal).id);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(new Set(seen).size).toBe(5);
  });

  it("trims the name and accepts 1 and 100 characters", async () => {
    expect(((await t.create({ name: "  Bella \t\n", categoryId: cat() })).body as Animal).name).toBe("Bella");
    expect(((await t.create({ name: "x", categoryId: cat() })).body as Animal).name).toBe("x");
    const long = "é".repeat(100);
    expect(((await t.create({ name: `  ${long}  `, categoryId: cat() })).body as Animal).name).toBe(long);
  });

  it("accepts a JSON Content-Type with parameters, in any case", async () => {
    for (const type of [
      "application/json; charset=utf-8",
      "Application/JSON",
      "application/json;charset=UTF-8",
    ]) {
      expect((await t.create({ name: "ct", categoryId: cat() }, { "content-type": type })).status).toBe(201);
    }
  });

  describe("validation", () => {
    const invalid: [string, unknown, string][] = [
      ["empty name", { name: "", categoryId: 1 }, "name"],
      ["whitespace name", { name: "   \t ", categoryId: 1 }, "name"],
      ["101-character name", { name: "x".repeat(101), categoryId: 1 }, "name"],
      ["101 characters after trimming", { name: ` ${"y".repeat(101)} `, categoryId: 1 }, "name"],
      ["numeric name", { name: 42, categoryId: 1 }, "name"],
      ["null name", { name: null, categoryId: 1 }, "name"],
      ["array name", { name: ["Rex"], categoryId: 1 }, "name"],
      ["missing name", { categoryId: 1 }, "name"],
      ["missing categoryId", { name: "Rex" }, "categoryId"],
      ["string categoryId", { name: "Rex", categoryId: "1" }, "categoryId"],
      ["fractional categoryId", { name: "Rex", categoryId: 1.5 }, "categoryId"],
      ["zero categoryId", { name: "Rex", categoryId: 0 }, "categoryId"],
      ["negative categoryId", { name: "Rex", categoryId: -1 }, "categoryId"],
      ["unsafe categoryId", { name: "Rex", categoryId: 2 ** 53 }, "categoryId"],
      ["boolean categoryId", { name: "Rex", categoryId: true }, "categoryId"],
      ["null categoryId", { name: "Rex", categoryId: null }, "categoryId"],
      ["unknown status", { name: "Rex", categoryId: 1, status: "lost" }, "status"],
      ["upper-case status", { name: "Rex", categoryId: 1, status: "SOLD" }, "status"],
      ["null status", { name: "Rex", categoryId: 1, status: null }, "status"],
      ["id", { id: 5, name: "Rex", categoryId: 1 }, "id"],
      ["a typo", { name: "Rex", categroyId: 1 }, "categroyId"],
      ["an extra property", { name: "Rex", categoryId: 1, colour: "brown" }, "colour"],
      ["a nested extra property", { name: "Rex", categoryId: 1, meta: { a: 1 } }, "meta"],
      ["empty object", {}, "name"],
    ];
    it.each(invalid)("rejects %s with 400 validation_failed and details", async (_label, body, path) => {
      const r = await noRowCreated(t, () => t.create(body));
      const e = expectError(r, 400, "validation_failed");
      expect(e.details?.map((d) => d.path)).toContain(path);
      expect(e.details?.every((d) => d.message.length > 0)).toBe(true);
    });

    it("rejects __proto__ and constructor properties", async () => {
      for (const text of [
        '{"name":"Rex","categoryId":1,"__proto__":{"admin":true}}',
        '{"name":"Rex","categoryId":1,"constructor":{"prototype":{}}}',
      ]) {
        expectError(await noRowCreated(t, () => t.create(text)), 400, "validation_failed");
      }
    });

    it("rejects an unknown categoryId with details on categoryId", async () => {
      for (const categoryId of [999_999, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
        const r = await noRowCreated(t, () => t.create({ name: "Rex", categoryId }));
        const e = expectError(r, 400, "validation_failed");
        expect(e.details).toEqual([{ path: "categoryId", message: expect.any(String) }]);
      }
    });
  });

  describe("body gate", () => {
    it.each([
      ["not JSON", "{name: 'Rex'}"],
      ["truncated JSON", '{"name":"Rex","categoryId":1'],
      ["empty body", ""],
      ["trailing garbage", '{"name":"Rex","categoryId":1} x'],
      ["a JSON array", '[{"name":"Rex","categoryId":1}]'],
      ["a JSON number", "42"],
      ["a JSON string", '"Rex"'],
      ["JSON null", "null"],
      ["JSON true", "true"],
    ])("rejects %s with 400 invalid_request", async (_label, text) => {
      const r = await noRowCreated(t, () => t.create(text));
      expectError(r, 400, "invalid_request");
    });

    it.each([
      ["missing", undefined],
      ["text/plain", "text/plain"],
      ["form", "application/x-www-form-urlencoded"],
      ["multipart", "multipart/form-data; boundary=x"],
      ["application/jsonx", "application/jsonx"],
      ["application/xml", "application/xml"],
    ])("answers 415 for a %s Content-Type", async (_label, type) => {
      const headers: Record<string, string> = { ...t.auth() };
      if (type) headers["content-type"] = type;
      const body = new TextEncoder().encode(JSON.stringify({ name: "Rex", categoryId: 1 }));
      const r = await noRowCreated(t, () =>
        t.call("createPet", "/v1/pets", { method: "POST", headers, body: body as unknown as BodyInit }),
      );
      expectError(r, 415, "unsupported_media_type");
    });

    it("accepts a body of exactly 16 KiB and rejects one byte more with 413", async () => {
      const sized = (bytes: number) => {
        const base = JSON.stringify({ name: "Rex", categoryId: cat() });
        return `${base.slice(0, -1)}${" ".repeat(bytes - base.length)}}`;
      };
      expect(Buffer.byteLength(sized(16 * 1024))).toBe(16384);
      expect((await t.create(sized(16 * 1024))).status).toBe(201);
      const r = await noRowCreated(t, () => t.create(sized(16 * 1024 + 1)));
      expectError(r, 413, "payload_too_large");
    });

    it("rejects a large body with 413 whatever its content", async () => {
      const r = await noRowCreated(t, () => t.create({ name: "x".repeat(100_000), categoryId: 1 }));
      expectError(r, 413, "payload_too_large");
    });

    it("rejects an oversized streamed body (no Content-Length) with 413", async () => {
      const chunk = new TextEncoder().encode(`{"name":"${"x".repeat(20_000)}","categoryId":1}`);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(chunk);
          controller.close();
        },
      });
      // Over the socket: a chunked body, as a client streams it.
      const r = await noRowCreated(t, () =>
        t.viaSocket().call("createPet", "/v1/pets", {
          method: "POST",
          headers: { ...t.auth(), "content-type": "application/json" },
          body,
          duplex: "half",
        } as RequestInit),
      );
      expectError(r, 413, "payload_too_large");
    });

    /** `{"name":"<prefix><bytes>","categoryId":<id>}` as raw bytes. */
    const bodyWithNameBytes = (bytes: number[], categoryId = cat()) =>
      Buffer.concat([
        Buffer.from('{"name":"Re'),
        Buffer.from(bytes),
        Buffer.from(`x","categoryId":${categoryId}}`),
      ]);
    const postBytes = (bytes: Uint8Array, headers: Record<string, string> = {}) =>
      t.call("createPet", "/v1/pets", {
        method: "POST",
        headers: { ...t.auth(), "content-type": "application/json", ...headers },
        body: bytes as unknown as BodyInit,
      });

    it.each([
      ["stray bytes", [0xff, 0xfe]],
      ["a lone continuation byte", [0x80]],
      ["an overlong encoding of /", [0xc0, 0xaf]],
      ["an encoded UTF-16 surrogate", [0xed, 0xa0, 0x80]],
      ["a truncated 4-byte sequence", [0xf0, 0x9f, 0x90]],
      ["a code point above U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ])("rejects a body with %s (not UTF-8) with 400 invalid_request", async (_label, bytes) => {
      const r = await noRowCreated(t, () => postBytes(bodyWithNameBytes(bytes)));
      const e = expectError(r, 400, "invalid_request");
      expect(e.message).toBe("The request body is not valid UTF-8.");
    });

    it("rejects a streamed body (no Content-Length) that is not UTF-8", async () => {
      const bytes = bodyWithNameBytes([0xff]);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.subarray(0, 12));
          controller.enqueue(bytes.subarray(12));
          controller.close();
        },
      });
      // Over the socket: a chunked body, as a client streams it.
      const r = await noRowCreated(t, () =>
        t.viaSocket().call("createPet", "/v1/pets", {
          method: "POST",
          headers: { ...t.auth(), "content-type": "application/json" },
          body,
          duplex: "half",
        } as RequestInit),
      );
      expectError(r, 400, "invalid_request");
    });

    it("remembers nothing for a body that is not UTF-8: the corrected retry with the same Idempotency-Key creates the animal", async () => {
      const key = `utf8-${Date.now()}`;
      const bad = await noRowCreated(t, () =>
        postBytes(bodyWithNameBytes([0xe9]), { "idempotency-key": key }),
      );
      expectError(bad, 400, "invalid_request");
      const good = await postBytes(bodyWithNameBytes([0xc3, 0xa9]), { "idempotency-key": key });
      expect(good.status).toBe(201);
      expect(good.headers.get("idempotent-replayed")).toBeNull();
      expect((good.body as Animal).name).toBe("Reéx");
    });

    it("stores multi-byte UTF-8 exactly as sent, U+FFFD itself included", async () => {
      const name = "Renée 🐶 \uFFFD 犬";
      const r = await postBytes(new TextEncoder().encode(JSON.stringify({ name, categoryId: cat() })));
      expect(r.status).toBe(201);
      const created = r.body as Animal;
      expect(created.name).toBe(name);
      const row = await databaseOf(t.s.rt).prisma.pet.findUniqueOrThrow({
        where: { id: BigInt(created.id) },
      });
      expect(row.name).toBe(name);
    });

    it("requires a key before looking at the body", async () => {
      const r = await noRowCreated(t, () =>
        t.call("createPet", "/v1/pets", {
          method: "POST",
          headers: { "content-type": "text/plain" },
          body: "x",
        }),
      );
      expectError(r, 401, "unauthorized");
    });
  });

  describe("Idempotency-Key", () => {
    let n = 0;
    const freshKey = () => `key-pg-${++n}-${Date.now()}`;

    it("replays the first response for the same key and body, creating nothing", async () => {
      const key = freshKey();
      const body = { name: "Idem", categoryId: cat(), status: "pending" };
      const first = await t.create(body, { "idempotency-key": key });
      expect(first.status).toBe(201);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const count = await t.petCount();
      for (let i = 0; i < 3; i++) {
        // Same body with another key order and whitespace is the same request.
        const again = await t.create(
          JSON.stringify({ status: "pending", categoryId: cat(), name: "Idem" }, null, 2),
          {
            "idempotency-key": key,
          },
        );
        expect(again.status).toBe(201);
        expect(again.body).toEqual(first.body);
        expect(again.headers.get("location")).toBe(first.headers.get("location"));
        expect(again.headers.get("idempotent-replayed")).toBe("true");
      }
      expect(await t.petCount()).toBe(count);
    });

    it("answers 422 for the same key with another body, creating nothing", async () => {
      const key = freshKey();
      expect((await t.create({ name: "One", categoryId: cat() }, { "idempotency-key": key })).status).toBe(
        201,
      );
      for (const other of [
        { name: "Two", categoryId: cat() },
        { name: "One", categoryId: cat(), status: "sold" },
        { name: "One", categoryId: t.s.categoryIds[0] },
      ]) {
        const r = await noRowCreated(t, () => t.create(other, { "idempotency-key": key }));
        expectError(r, 422, "idempotency_key_reused");
      }
    });

    it("is scoped per API key: another key with the same Idempotency-Key creates a new animal", async () => {
      const key = freshKey();
      const body = { name: "Scoped", categoryId: cat() };
      const first = await t.create(body, { "idempotency-key": key });
      const other = await t.s.rt.apiKeys.create({ name: "other", plan: "business" }, "test");
      const second = await t.create(body, { ...t.auth(other.key), "idempotency-key": key });
      expect(second.status).toBe(201);
      expect(second.headers.get("idempotent-replayed")).toBeNull();
      expect((second.body as Animal).id).not.toBe((first.body as Animal).id);
      const replay = await t.create(body, { ...t.auth(other.key), "idempotency-key": key });
      expect((replay.body as Animal).id).toBe((second.body as Animal).id);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
    });

    it("distinguishes keys and works without one", async () => {
      const body = { name: "Twice", categoryId: cat() };
      const a = await t.create(body, { "idempotency-key": freshKey() });
      const b = await t.create(body, { "idempotency-key": freshKey() });
      const c = await t.create(body);
      const d = await t.create(body);
      const ids = [a, b, c, d].map((r) => (r.body as Animal).id);
      expect(new Set(ids).size).toBe(4);
    });

    it("does not remember a rejected request: a corrected retry with the same key runs", async () => {
      const key = freshKey();
      const bad = await noRowCreated(t, () =>
        t.create({ name: "Fix", categoryId: 987_654 }, { "idempotency-key": key }),
      );
      expectError(bad, 400, "validation_failed");
      const invalid = await noRowCreated(t, () =>
        t.create({ name: "", categoryId: cat() }, { "idempotency-key": key }),
      );
      expectError(invalid, 400, "validation_failed");
      const good = await t.create({ name: "Fix", categoryId: cat() }, { "idempotency-key": key });
      expect(good.status).toBe(201);
      expect(good.headers.get("idempotent-replayed")).toBeNull();
    });

    it("answers 409 with Retry-After while the first request is in flight, and takes over an abandoned one", async () => {
      const key = freshKey();
      const body = { name: "In flight", categoryId: cat() };
      const start = Date.now();
      t.s.setNow(new Date(start));
      try {
        const caller = await t.s.rt.apiKeys.authenticate(t.s.key);
        // What a first request leaves while it is still being processed: a reservation without a response.
        await databaseOf(t.s.rt).prisma.idempotencyRecord.create({
          data: {
            apiKeyId: caller?.keyId ?? "",
            key,
            fingerprint: fingerprintBody(body),
            createdAt: new Date(start),
            expiresAt: new Date(start + 24 * 3600_000),
          },
        });
        const busy = await noRowCreated(t, () => t.create(body, { "idempotency-key": key }));
        expectError(busy, 409, "idempotency_key_in_use");
        expect(busy.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
        const other = await noRowCreated(t, () =>
          t.create({ ...body, name: "Other" }, { "idempotency-key": key }),
        );
        expectError(other, 422, "idempotency_key_reused");
        t.s.setNow(new Date(start + 30_000));
        expectError(await t.create(body, { "idempotency-key": key }), 409, "idempotency_key_in_use");
        // A reservation without a response after a minute belongs to a request that died: the retry runs.
        t.s.setNow(new Date(start + 61_000));
        const taken = await t.create(body, { "idempotency-key": key });
        expect(taken.status).toBe(201);
        expect(taken.headers.get("idempotent-replayed")).toBeNull();
        const replay = await t.create(body, { "idempotency-key": key });
        expect(replay.headers.get("idempotent-replayed")).toBe("true");
        expect(replay.body).toEqual(taken.body);
      } finally {
        t.s.setNow(new Date());
      }
    });

    it("forgets a key after 24 hours", async () => {
      const key = freshKey();
      const body = { name: "Later", categoryId: cat() };
      const first = await t.create(body, { "idempotency-key": key });
      t.s.setNow(new Date(Date.now() + 24 * 3600_000 + 60_000));
      try {
        const later = await t.create(body, { "idempotency-key": key });
        expect(later.status).toBe(201);
        expect(later.headers.get("idempotent-replayed")).toBeNull();
        expect((later.body as Animal).id).not.toBe((first.body as Animal).id);
      } finally {
        t.s.setNow(new Date());
      }
    });

    it.each([
      ["empty", ""],
      ["256 characters", "k".repeat(256)],
    ])("rejects an %s Idempotency-Key with 400", async (_label, value) => {
      const r = await noRowCreated(t, () =>
        t.create({ name: "Bad key", categoryId: cat() }, { "idempotency-key": value }),
      );
      const e = expectError(r, 400, "validation_failed");
      expect(e.details?.map((d) => d.path.toLowerCase())).toContain("idempotency-key");
    });

    it("accepts 255 printable characters", async () => {
      const value = `${"~!".repeat(127)}z`;
      expect(value).toHaveLength(255);
      expect(
        (await t.create({ name: "Long key", categoryId: cat() }, { "idempotency-key": value })).status,
      ).toBe(201);
    });

    it.each([
      ["a tab", "a\tb"],
      ["non-ASCII", "clé"],
      ["an emoji", "key-🐶"],
    ])("rejects an Idempotency-Key with %s with a JSON 400", async (_label, value) => {
      const before = await t.petCount();
      const r = await rawRequest(t.s.baseUrl, {
        method: "POST",
        path: "/v1/pets",
        headers: {
          ...t.auth(),
          "Content-Type": "application/json",
          "Idempotency-Key": Buffer.from(value, "utf8").toString("latin1"),
        },
        body: JSON.stringify({ name: "Raw", categoryId: cat() }),
      });
      expect(r.status).toBe(400);
      expect(r.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(JSON.parse(r.body)).toMatchObject({ code: "validation_failed", status: 400 });
      expect(await t.petCount()).toBe(before);
    });
  });
});
