/**
 * Conventions of every /v1 response (docs/contract.md section 1): X-Request-Id, Cache-Control (no-store but for
 * the answers with an ETag) and the JSON content type on every status; 404 for unknown paths, 405 with Allow for other
 * methods; and the served OpenAPI document.
 */
import { loadConfig } from "@petstore/config";
import { problems, restErrorCodes } from "@petstore/contracts";
import { fingerprintBody } from "@petstore/core";
import { databaseOf } from "@petstore/core/testing";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { documentServers, openApiDocument } from "../../src/server/rest/openapi-document.ts";
import type { OpenApiResponseValidator } from "../support/openapi-validator.ts";
import { type CallResult, expectError, rawRequest, seedPets, useServer } from "./support.ts";

/** The operations on animals and of the store section. */
const STORE_AND_PETS = [
  "listPets",
  "createPet",
  "getPet",
  "updatePet",
  "listOrders",
  "createOrder",
  "getOrder",
  "completeOrder",
  "cancelOrder",
  "getInventory",
];

// biome-ignore lint/suspicious/noExplicitAny: walking a parsed OpenAPI document
type Json = Record<string, any>;

/** `r` as the 405 the document describes once, for every path (`components.responses.MethodNotAllowed`). */
const methodNotAllowedProblems = (v: OpenApiResponseValidator, r: CallResult) =>
  v.checkAgainst(
    "#/components/responses/MethodNotAllowed",
    new Response(null, { status: r.status, headers: r.headers }),
    r.text,
  );

const allowOf = (r: CallResult) =>
  (r.headers.get("allow") ?? "")
    .split(",")
    .map((m) => m.trim())
    .sort();

describe("HTTP conventions (postgres)", () => {
  const t = useServer("postgres");
  let petId = 0;

  beforeAll(async () => {
    [petId = 0] = await seedPets(t.s, 3);
  });

  afterEach(() => t.s.setNow(new Date()));

  /** One request per documented operation plus the paths that are no operation. */
  const requests = (headers: Record<string, string>) =>
    [
      () => t.call("listPets", "/v1/pets", { headers: { ...t.auth(), ...headers } }),
      () =>
        t.call("createPet", "/v1/pets", {
          method: "POST",
          headers: { ...t.auth(), "content-type": "application/json", ...headers },
          body: JSON.stringify({ name: "Req", categoryId: t.s.categoryIds[0] }),
        }),
      () => t.call("getPet", `/v1/pets/${petId}`, { headers: { ...t.auth(), ...headers } }),
      () => t.call("listOrders", "/v1/store/orders", { headers: { ...t.auth(), ...headers } }),
      () => t.call("listPets", "/v1/pets", { headers }),
      () => t.call(null, "/v1/nowhere", { headers }),
      () => t.call(null, "/v1/pets", { method: "DELETE", headers }),
      () => t.call(null, "/v1/openapi.json", { headers }),
    ] as const;

  describe("X-Request-Id", () => {
    it.each(["abc.DEF-123_x", "1", "a".repeat(128), "req_2024-01-01.42", "...---___"])(
      "echoes the sane value %s on every response",
      async (id) => {
        for (const send of requests({ "x-request-id": id })) {
          expect((await send()).headers.get("x-request-id")).toBe(id);
        }
      },
    );

    it.each([
      ["too long", "a".repeat(129)],
      ["spaces", "a b"],
      ["markup", "<script>alert(1)</script>"],
      ["a slash", "a/b"],
      ["a colon", "a:b"],
      ["quotes", '"x"'],
      ["a semicolon", "a;b"],
    ])("replaces a value with %s by a fresh one", async (_label, id) => {
      const seen = new Set<string>();
      for (const send of requests({ "x-request-id": id })) {
        const got = (await send()).headers.get("x-request-id") ?? "";
        expect(got).not.toBe(id);
        expect(got).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
        seen.add(got);
      }
      expect(seen.size).toBe(requests({}).length);
    });

    it("replaces a non-ASCII value", async () => {
      const r = await rawRequest(t.s.baseUrl, {
        method: "GET",
        path: "/v1/pets",
        headers: { ...t.auth(), "X-Request-Id": Buffer.from("réq-1", "utf8").toString("latin1") },
      });
      expect(r.status).toBe(200);
      expect(r.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
      expect(r.headers["x-request-id"]).not.toContain("q-1\u00a0");
    });

    it("generates a distinct id when none is sent", async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++)
        ids.add(
          (await t.call("listPets", "/v1/pets", { headers: t.auth() })).headers.get("x-request-id") ?? "",
        );
      expect(ids.size).toBe(5);
    });

    it("names the request id in a 500's message so support can find the log line", async () => {
      const spy = vi.spyOn(t.s.rt.pets, "get").mockRejectedValueOnce(new Error("boom"));
      try {
        const r = await t.call("getPet", `/v1/pets/${petId}`, {
          headers: { ...t.auth(), "x-request-id": "trace-me-1" },
        });
        const e = expectError(r, 500, "internal_error");
        expect(e.message).toContain("trace-me-1");
      } finally {
        spy.mockRestore();
      }
    });
  });

  it("sends Cache-Control (no-store on every error) and the JSON content type on every status", async () => {
    const statuses = new Set<number>();
    const record = (r: CallResult) => {
      // `call` checks both headers and the OpenAPI document; here we only collect which statuses we saw.
      statuses.add(r.status);
      return r;
    };
    const c = t.s.categoryIds[0];
    record(await t.call("listPets", "/v1/pets", { headers: t.auth() }));
    record(await t.create({ name: "Ok", categoryId: c }));
    record(await t.call("listPets", "/v1/pets?limit=0", { headers: t.auth() }));
    record(await t.call("listPets", "/v1/pets", {}));
    record(await t.call("getPet", "/v1/pets/999999", { headers: t.auth() }));
    record(await t.call(null, "/v1/nowhere", {}));
    record(await t.call(null, "/v1/pets", { method: "PUT" }));
    record(await t.create({ name: "x".repeat(20_000), categoryId: c }));
    record(await t.create("{}", { "content-type": "text/plain" }));
    const key = `ck-pg-${Date.now()}`;
    record(await t.create({ name: "A", categoryId: c }, { "idempotency-key": key }));
    record(await t.create({ name: "B", categoryId: c }, { "idempotency-key": key }));
    record(await t.call("listOrders", "/v1/store/orders", { headers: t.auth() }));
    record(
      await t.call("updatePet", `/v1/pets/${petId}`, {
        method: "PATCH",
        headers: { ...t.auth(), "content-type": "application/merge-patch+json", "if-match": '"stale"' },
        body: "{}",
      }),
    );
    // An Idempotency-Key whose first request is still in flight (reserved, not completed).
    const caller = await t.s.rt.apiKeys.authenticate(t.s.key);
    const body = { name: "In flight", categoryId: c };
    await databaseOf(t.s.rt).prisma.idempotencyRecord.create({
      data: {
        apiKeyId: caller?.keyId ?? "",
        key: `inflight-pg`,
        fingerprint: fingerprintBody(body),
        createdAt: new Date(),
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    const inFlight = record(await t.create(body, { "idempotency-key": `inflight-pg` }));
    expect(inFlight.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    t.s.setNow(new Date("2031-01-01T00:00:00Z"));
    record(await t.call("getPet", `/v1/pets/${petId}`, { headers: t.auth() }));
    expect([...statuses].sort()).toEqual([200, 201, 400, 401, 404, 405, 409, 410, 412, 413, 415, 422]);
  });

  describe("unknown paths", () => {
    it.each([
      "/v1/nowhere",
      "/v1/pets/1/photos",
      "/v1/pets/",
      "/v1/PETS",
      "/v1/store",
      "/v1/store/orders/1/photos",
      "/v1/store/orders/1/complete/now",
      "/v1/store/inventory/1",
      "/v1/user/login",
      "/v1/openapi.yaml",
      "/v1/",
      "/v1",
    ])("answers 404 not_found JSON for %s, with or without a key", async (path) => {
      for (const headers of [{}, t.auth()]) {
        const r = await t.call(null, path, { headers });
        const e = expectError(r, 404, "not_found");
        expect(e.message.length).toBeGreaterThan(0);
      }
    });

    it("answers 404 for any method on an unknown path", async () => {
      for (const method of ["POST", "PUT", "DELETE"])
        expectError(await t.call(null, "/v1/nowhere", { method }), 404, "not_found");
    });
  });

  describe("other methods", () => {
    it.each(["PUT", "DELETE", "PATCH"])(
      "%s /v1/pets answers 405 with Allow: GET, HEAD, POST",
      async (method) => {
        const before = await t.petCount();
        const r = await t.call(null, "/v1/pets", {
          method,
          headers: { ...t.auth(), "content-type": "application/json" },
          body: JSON.stringify({ name: "No", categoryId: 1 }),
        });
        expectError(r, 405, "method_not_allowed");
        expect(allowOf(r)).toEqual(["GET", "HEAD", "POST"]);
        expect(methodNotAllowedProblems(t.v, r)).toEqual([]);
        expect(await t.petCount()).toBe(before);
      },
    );

    it.each(["PUT", "DELETE", "POST"])(
      "%s /v1/pets/{id} answers 405 with Allow: GET, HEAD, PATCH",
      async (method) => {
        const r = await t.call(null, `/v1/pets/${petId}`, { method, headers: t.auth() });
        expectError(r, 405, "method_not_allowed");
        expect(allowOf(r)).toEqual(["GET", "HEAD", "PATCH"]);
        expect(methodNotAllowedProblems(t.v, r)).toEqual([]);
        expect(
          await databaseOf(t.s.rt).prisma.pet.findUnique({ where: { id: BigInt(petId) } }),
        ).not.toBeNull();
      },
    );

    it.each([
      ["PUT", "/v1/store/orders", ["GET", "HEAD", "POST"]],
      ["DELETE", "/v1/store/orders/1", ["GET", "HEAD"]],
      ["GET", "/v1/store/orders/1/complete", ["POST"]],
      ["PATCH", "/v1/store/orders/1/cancel", ["POST"]],
      ["POST", "/v1/store/inventory", ["GET", "HEAD"]],
      ["POST", "/v1/openapi.json", ["GET", "HEAD"]],
    ])("%s %s answers 405 with its Allow, without a key", async (method, path, allowed) => {
      const r = await t.call(null, path, { method });
      expectError(r, 405, "method_not_allowed");
      expect(allowOf(r)).toEqual(allowed);
      expect(methodNotAllowedProblems(t.v, r)).toEqual([]);
    });
  });

  describe("GET /v1/openapi.json", () => {
    let doc: Json;
    beforeAll(async () => {
      const r = await t.call(null, "/v1/openapi.json");
      expect(r.status).toBe(200);
      doc = r.body as Json;
    });

    const operation = (id: string): Json => {
      for (const item of Object.values(doc.paths as Json)) {
        for (const op of Object.values(item as Json)) if ((op as Json).operationId === id) return op as Json;
      }
      throw new Error(`no operation ${id}`);
    };

    it("is OpenAPI 3.1.0, version 1.0.0, served without a key", () => {
      expect(doc.openapi).toBe("3.1.0");
      expect(doc.info.version).toBe("1.0.0");
      expect(doc.info.title).toBeTruthy();
    });

    it("lists this deployment (PUBLIC_BASE_URL) first, then production and staging, as servers", () => {
      expect(doc.servers).toEqual([
        { url: "https://api.test.example/v1", description: "This server" },
        { url: t.s.rt.config.servers.production, description: "Production" },
        { url: t.s.rt.config.servers.staging, description: "Staging" },
      ]);
      expect(t.s.rt.config.servers.production).toMatch(/^https:\/\/.+\/v1$/);
      expect(t.s.rt.config.servers.staging).toMatch(/^https:\/\/.+\/v1$/);
    });

    it("lists a deployment that is production or staging once, first", () => {
      const config = (env: Record<string, string>) => loadConfig({ PGLITE_DIR: "memory://", ...env });
      expect(
        documentServers(
          config({
            PUBLIC_BASE_URL: "https://api.shop.example",
            PRODUCTION_ORIGIN: "https://api.shop.example",
          }),
        ).map((s) => s.description),
      ).toEqual(["This server (production)", "Staging"]);
      expect(
        documentServers(
          config({
            PUBLIC_BASE_URL: "https://staging.shop.example",
            STAGING_ORIGIN: "https://staging.shop.example",
          }),
        ).map((s) => s.description),
      ).toEqual(["This server (staging)", "Production"]);
    });

    it("states the limits the API enforces: page size, name length, id ranges", async () => {
      const schemas = doc.components.schemas as Json;
      expect(schemas.Pets.maxItems).toBe(100);
      expect(schemas.Animal.properties.name).toMatchObject({ minLength: 1, maxLength: 100 });
      for (const id of ["id", "categoryId"])
        expect(schemas.Animal.properties[id]).toMatchObject({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
      expect(schemas.NewPet.properties.name).toMatchObject({ minLength: 1, maxLength: 100 });
      expect(schemas.NewPet.properties.categoryId).toMatchObject({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
      });
      const petId = (operation("getPet").parameters as Json[]).find((p) => p.name === "petId");
      expect(petId?.schema).toMatchObject({ type: "integer", format: "int64", minimum: 1 });
      // 2^63-1 exactly in the served text (a double would print 9223372036854776000).
      const text = await (await t.s.fetch("/v1/openapi.json")).text();
      expect(text).toContain('"maximum":9223372036854775807,');
      expect(text).not.toContain("9223372036854776000");
    });

    it("is, byte for byte, the text built from the declarations without a runtime", async () => {
      // The client's types are generated from the runtime-free text (npm run -s -w @petstore/web openapi).
      const text = await (await t.s.fetch("/v1/openapi.json")).text();
      expect(text).toBe(openApiDocument(t.s.rt.config));
    });

    it("describes the 405 every path answers, with Allow", () => {
      const response = doc.components.responses.MethodNotAllowed as Json;
      expect(response.description).toContain("method_not_allowed");
      expect(response.headers.Allow).toEqual({ $ref: "#/components/headers/Allow" });
      expect(doc.components.headers.Allow.required).toBe(true);
      expect(response.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
      expect(doc.info.description).toContain("#/components/responses/MethodNotAllowed");
    });

    it("declares the operations at paths relative to the base URL", () => {
      expect(doc.paths["/pets"]?.get?.operationId).toBe("listPets");
      expect(doc.paths["/pets"]?.post?.operationId).toBe("createPet");
      expect(doc.paths["/pets/{petId}"]?.get?.operationId).toBe("getPet");
      expect(doc.paths["/pets/{petId}"]?.patch?.operationId).toBe("updatePet");
      expect(doc.paths["/store/orders"]?.get?.operationId).toBe("listOrders");
      expect(doc.paths["/store/orders"]?.post?.operationId).toBe("createOrder");
      expect(doc.paths["/store/orders/{orderId}"]?.get?.operationId).toBe("getOrder");
      expect(doc.paths["/store/orders/{orderId}/complete"]?.post?.operationId).toBe("completeOrder");
      expect(doc.paths["/store/orders/{orderId}/cancel"]?.post?.operationId).toBe("cancelOrder");
      expect(doc.paths["/store/inventory"]?.get?.operationId).toBe("getInventory");
      for (const path of Object.keys(doc.paths)) expect(path.startsWith("/v1/")).toBe(false);
    });

    it("marks getPet, and only getPet, deprecated", () => {
      expect(operation("getPet").deprecated).toBe(true);
      for (const id of STORE_AND_PETS.filter((id) => id !== "getPet"))
        expect(operation(id).deprecated).toBeFalsy();
    });

    it("secures every operation with bearer authentication", () => {
      const schemes = doc.components.securitySchemes as Json;
      const bearer = Object.entries(schemes).filter(([, s]) => s.type === "http" && s.scheme === "bearer");
      expect(bearer).toHaveLength(1);
      const [name] = bearer[0] ?? [];
      for (const id of STORE_AND_PETS) {
        const security = (operation(id).security ?? doc.security) as Json[];
        expect(security.some((req) => name !== undefined && name in req)).toBe(true);
      }
    });

    it("lists every error code of the product in the Error schema, and only those", () => {
      const error = doc.components.schemas.Error as Json;
      const documented = error.properties.code.enum as string[];
      expect([...documented].sort()).toEqual([...restErrorCodes].sort());
      expect([...(error.required as string[])].sort()).toEqual(["code", "message", "status"]);
      // What the server answers on its own (its Node server, parser errors, the probes) is in the set too.
      const own = [
        problems.unauthorized(false),
        problems.notFound("/x"),
        problems.methodNotAllowed("PUT", ["GET"]),
        problems.payloadTooLarge(),
        problems.unsupportedMediaType(),
        problems.headerTooLarge(),
        problems.requestTimeout(),
        problems.malformedRequest(),
        problems.methodNotImplemented(),
        problems.internalError(),
      ];
      for (const { code } of own) expect(documented).toContain(code);
    });

    it("documents each operation's statuses", () => {
      const statuses = (id: string) => Object.keys(operation(id).responses).sort();
      expect(statuses("listPets")).toEqual(
        expect.arrayContaining(["200", "400", "401", "429", "500", "503"]),
      );
      expect(statuses("createPet")).toEqual(
        expect.arrayContaining(["201", "400", "401", "409", "413", "415", "422", "429", "500", "503"]),
      );
      expect(statuses("getPet")).toEqual(
        expect.arrayContaining(["200", "400", "401", "404", "410", "429", "500", "503"]),
      );
      expect(statuses("updatePet")).toEqual(
        expect.arrayContaining(["200", "400", "401", "403", "404", "409", "412", "415", "429", "500", "503"]),
      );
      expect(statuses("createOrder")).toEqual(
        expect.arrayContaining(["201", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503"]),
      );
      expect(statuses("listOrders")).toEqual(expect.arrayContaining(["200", "304", "400", "401", "403"]));
      expect(statuses("getOrder")).toEqual(expect.arrayContaining(["200", "304", "400", "404"]));
      for (const id of ["completeOrder", "cancelOrder"])
        expect(statuses(id)).toEqual(expect.arrayContaining(["200", "400", "404", "409", "415"]));
      expect(statuses("getInventory")).toEqual(expect.arrayContaining(["200", "304", "401", "403"]));
    });

    it("documents the parameters as the interface types them", () => {
      const params = (id: string) =>
        Object.fromEntries((operation(id).parameters as Json[]).map((p) => [p.name, p]));
      const list = params("listPets");
      expect(list.limit?.in).toBe("query");
      expect(list.limit?.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
      expect(list.status?.schema?.enum ?? doc.components.schemas.PetStatus?.enum).toEqual([
        "available",
        "pending",
        "sold",
      ]);
      expect(list.cursor?.in).toBe("query");
      const get = params("getPet");
      expect(get.petId).toMatchObject({ in: "path", required: true });
      expect(get.petId?.schema).toMatchObject({ type: "integer", format: "int64" });
      expect(Object.keys(params("createPet")).map((n) => n.toLowerCase())).toContain("idempotency-key");
      expect(operation("createPet").requestBody?.required).toBe(true);
    });

    it("documents the headers: request id, no-store, Location, lifecycle, challenge, Retry-After", () => {
      const headersOf = (id: string, status: string) =>
        Object.keys(operation(id).responses[status]?.headers ?? {});
      for (const id of STORE_AND_PETS) {
        for (const status of Object.keys(operation(id).responses)) {
          expect(headersOf(id, status)).toEqual(expect.arrayContaining(["X-Request-Id", "Cache-Control"]));
        }
        expect(headersOf(id, "401")).toContain("WWW-Authenticate");
        expect(headersOf(id, "429")).toContain("Retry-After");
        expect(headersOf(id, "503")).toContain("Retry-After");
      }
      expect(headersOf("createPet", "201")).toEqual(
        expect.arrayContaining(["Location", "Idempotent-Replayed", "ETag"]),
      );
      expect(headersOf("createOrder", "201")).toEqual(
        expect.arrayContaining(["Location", "Idempotent-Replayed"]),
      );
      expect(headersOf("updatePet", "200")).toContain("ETag");
      // Only the 409 of an Idempotency-Key in flight carries Retry-After; a conflict's repeats meet the same state.
      expect(operation("createOrder").responses["409"].headers["Retry-After"]).toEqual({
        $ref: "#/components/headers/RetryAfterWhenInUse",
      });
      expect(operation("createPet").responses["409"].headers["Retry-After"]).toEqual({
        $ref: "#/components/headers/Retry-After",
      });
      expect(headersOf("listPets", "200")).toContain("Link");
      for (const status of Object.keys(operation("getPet").responses)) {
        expect(headersOf("getPet", status)).toEqual(
          expect.arrayContaining(["Deprecation", "Sunset", "Link"]),
        );
      }
    });

    it("describes the NewPet body strictly", () => {
      const newPet = doc.components.schemas.NewPet as Json;
      expect(newPet.additionalProperties).toBe(false);
      expect([...(newPet.required as string[])].sort()).toEqual(["categoryId", "name"]);
      expect(newPet.properties.name).toMatchObject({ type: "string", minLength: 1, maxLength: 100 });
    });
  });
});
