/**
 * What an outside API consumer gets, over HTTP against the app served in process (in-process.ts): restricted keys (docs/contract.md
 * section 2, "Scopes"; a change made by another instance applies within 5 s), browser access (section 1,
 * "Browsers (CORS)") and conditional GET with compression (section 1, "Conditional requests and compression").
 */
import http from "node:http";
import zlib from "node:zlib";
import { databaseOf } from "@petstore/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../support/harness.ts";
import { type InProcessApp, useInProcessApp } from "./in-process.ts";
import { ADMIN, rest, signIn, type Target, trpc } from "./support.ts";

const ORIGIN = "https://editor.swagger.example";
const WRITE_CHALLENGE = 'Bearer realm="petstore", error="insufficient_scope", scope="pets:write"';
const READ_CHALLENGE = 'Bearer realm="petstore", error="insufficient_scope", scope="pets:read"';

/** A request whose body is read as the bytes sent (fetch would decode them). */
function raw(
  app: Target,
  path: string,
  headers: Record<string, string>,
  method = "GET",
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${app.baseUrl}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (d: Buffer) => chunks.push(d));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          bytes: Buffer.concat(chunks),
        }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end();
  });
}

describe("restricted keys, browsers and conditional GET", () => {
  const app: InProcessApp = useInProcessApp({ ANONYMOUS_PER_MINUTE: "40" });
  let categoryId = 0;
  let petId = 0;

  beforeAll(async () => {
    const prisma = databaseOf(app.db.rt).prisma;
    categoryId = Number((await prisma.category.findFirstOrThrow()).id);
    await prisma.pet.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({
        name: `Consumer ${i}`,
        categoryId: BigInt(categoryId),
      })),
    });
    petId = Number((await prisma.pet.findFirstOrThrow({ orderBy: { id: "asc" } })).id);
  });

  const issue = async (scopes: ("pets:read" | "pets:write")[]) =>
    app.db.rt.apiKeys.create(
      {
        name: `consumer ${scopes.join(" ")}`,
        plan: "enterprise",
        perMinute: 100_000,
        perDay: 1_000_000,
        scopes,
      },
      "test",
    );
  const withKey = (key: string, init: RequestInit = {}) => ({
    ...init,
    headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${key}` },
  });
  const createWith = (key: string) =>
    rest(
      app,
      "/v1/pets",
      withKey(key, { method: "POST", body: JSON.stringify({ name: "Scoped", categoryId }) }),
    );

  describe("restricted keys", () => {
    it("refuses a read-only key's creation with 403 insufficient_scope, counted, creating nothing", async () => {
      const reader = await issue(["pets:read"]);
      expect((await rest(app, "/v1/pets?limit=1", withKey(reader.key))).status).toBe(200);
      const before = await databaseOf(app.db.rt).prisma.pet.count();
      const refused = await createWith(reader.key);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body).toMatchObject({ code: "insufficient_scope", status: 403 });
      expect(refused.headers.get("www-authenticate")).toBe(WRITE_CHALLENGE);
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("99998");
      expect(refused.headers.get("cache-control")).toBe("no-store");
      expect(await databaseOf(app.db.rt).prisma.pet.count()).toBe(before);
    });

    it("applies a change of scopes made elsewhere (another instance, the dashboard) within 5 s", async () => {
      const key = await issue(["pets:read"]);
      // The server's clock stands still unless moved (it stays where this test leaves it: it never goes back).
      const changedAt = app.now().getTime();
      app.setNow(new Date(changedAt));
      expect((await createWith(key.key)).status).toBe(403);
      // Another instance changes the key: the server's cache lets it go within 5 s.
      const elsewhere = await startTestServer("postgres", {
        env: { DATABASE_URL: app.db.url },
        migrated: true,
      });
      try {
        await elsewhere.rt.apiKeys.changeScopes(key.id, ["pets:write"], "test");
      } finally {
        await elsewhere.close();
      }
      let created = false;
      for (let elapsed = 0; elapsed <= 6_000 && !created; elapsed += 250) {
        app.setNow(new Date(changedAt + elapsed));
        created = (await createWith(key.key)).status === 201;
      }
      expect(created).toBe(true);
      expect(app.now().getTime() - changedAt).toBeLessThan(5_000);
      expect((await rest(app, "/v1/pets?limit=1", withKey(key.key))).headers.get("www-authenticate")).toBe(
        READ_CHALLENGE,
      );

      // Changed in the dashboard (same process): at once.
      const session = await signIn(app, ADMIN);
      const r = await trpc(
        app,
        "mutation",
        "apiKeys.changeScopes",
        { id: key.id, scopes: ["pets:read"] },
        { token: session },
      );
      expect(r.status, r.text).toBe(200);
      expect((await rest(app, "/v1/pets?limit=1", withKey(key.key))).status).toBe(200);
      expect((await createWith(key.key)).status).toBe(403);
    });
  });

  describe("browsers", () => {
    it("answers preflights 204 before admission, and lets every answer be read from any origin", async () => {
      const anonymousLeft = async () =>
        Number((await fetch(`${app.baseUrl}/v1/pets`)).headers.get("x-ratelimit-remaining"));
      const left = await anonymousLeft();
      for (const path of ["/v1/pets", "/v1/pets/1", "/v1/openapi.json"]) {
        const r = await fetch(`${app.baseUrl}${path}`, {
          method: "OPTIONS",
          headers: {
            Origin: ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
          },
        });
        expect(r.status).toBe(204);
        expect(r.headers.get("access-control-allow-origin")).toBe("*");
        expect(r.headers.get("access-control-allow-methods")).toBe("GET,HEAD,POST,PATCH");
        expect(r.headers.get("access-control-allow-headers")).toBe(
          "Authorization,Content-Type,Idempotency-Key,X-Request-Id,If-None-Match,If-Match",
        );
        expect(r.headers.get("access-control-max-age")).toBe("7200");
        expect(r.headers.get("x-request-id")).not.toBeNull();
        expect(r.headers.get("x-ratelimit-remaining")).toBeNull();
      }
      // Only the second keyless GET came out of the address's anonymous budget.
      expect(await anonymousLeft()).toBe(left - 1);

      for (const r of [
        await fetch(`${app.baseUrl}/v1/pets`, { headers: { Origin: ORIGIN } }),
        await fetch(`${app.baseUrl}/v1/openapi.json`, { headers: { Origin: ORIGIN } }),
        await fetch(`${app.baseUrl}/v1/pets?limit=2`, {
          headers: { Origin: ORIGIN, Authorization: `Bearer ${app.key}` },
        }),
      ]) {
        expect(r.headers.get("access-control-allow-origin")).toBe("*");
        expect(r.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining");
        expect(r.headers.get("access-control-expose-headers")).toContain("ETag");
      }
    });
  });

  describe("conditional GET and compression", () => {
    it("tags a page, answers 304 to its tag and compresses it for a client that accepts gzip", async () => {
      const auth = { Authorization: `Bearer ${app.key}` };
      const plain = await raw(app, "/v1/pets?limit=100", auth);
      expect(plain.status).toBe(200);
      expect(plain.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(plain.headers["cache-control"]).toBe("private, no-cache, must-revalidate");
      const gzip = await raw(app, "/v1/pets?limit=100", { ...auth, "Accept-Encoding": "gzip, deflate, br" });
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      expect(gzip.headers.vary).toBe("Origin, Accept-Encoding");
      expect(gzip.headers.etag).toBe(`W/${plain.headers.etag}`);
      expect(zlib.gunzipSync(gzip.bytes).equals(plain.bytes)).toBe(true);

      const cached = await raw(app, "/v1/pets?limit=100", {
        ...auth,
        "If-None-Match": plain.headers.etag ?? "",
      });
      expect(cached.status).toBe(304);
      expect(cached.bytes.length).toBe(0);
      expect(cached.headers.etag).toBe(plain.headers.etag);
      expect(cached.headers.link).toBe(plain.headers.link);
      expect(Number(cached.headers["x-ratelimit-remaining"])).toBe(
        Number(gzip.headers["x-ratelimit-remaining"]) - 1,
      );

      const animal = await raw(app, `/v1/pets/${petId}`, auth);
      const animal304 = await raw(app, `/v1/pets/${petId}`, {
        ...auth,
        "If-None-Match": animal.headers.etag ?? "",
      });
      expect(animal304.status).toBe(304);
      expect(animal304.headers.deprecation).toBe(animal.headers.deprecation);
    });

    it("serves the OpenAPI document cacheable for 5 minutes, tagged and compressed", async () => {
      const plain = await raw(app, "/v1/openapi.json", {});
      expect(plain.headers["cache-control"]).toBe("public, max-age=300");
      const br = await raw(app, "/v1/openapi.json", { "Accept-Encoding": "br" });
      expect(br.headers["content-encoding"]).toBe("br");
      expect(zlib.brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
      expect(br.bytes.length).toBeLessThan(plain.bytes.length / 4);
      const cached = await raw(app, "/v1/openapi.json", { "If-None-Match": plain.headers.etag ?? "" });
      expect(cached.status).toBe(304);
    });
  });
});

describe("browsers from listed origins only (CORS_ALLOWED_ORIGINS)", () => {
  const app: InProcessApp = useInProcessApp({ CORS_ALLOWED_ORIGINS: `${ORIGIN},https://tools.example.com` });

  it("echoes a listed origin with Vary: Origin and gives another none", async () => {
    const listed = await fetch(`${app.baseUrl}/v1/openapi.json`, { headers: { Origin: ORIGIN } });
    expect(listed.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(listed.headers.get("vary")).toContain("Origin");
    const other = await fetch(`${app.baseUrl}/v1/openapi.json`, {
      headers: { Origin: "https://evil.example" },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(`${app.baseUrl}/v1/pets`, {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});
