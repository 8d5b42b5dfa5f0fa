/**
 * Conditional GET and compression (docs/contract.md section 1, "Conditional requests and compression"): ETags on
 * listPets, getPet and the OpenAPI document; If-None-Match answered 304 with the 200's headers (RFC 9110
 * sections 13.1.2 and 15.4.5), counted like any request; bodies over 1 KiB compressed with gzip or br as
 * Accept-Encoding allows, with Vary and a weak ETag.
 */
import http from "node:http";
import zlib from "node:zlib";
import { databaseOf } from "@petstore/core/testing";
import { Agent, interceptors, request } from "undici";
import { beforeAll, describe, expect, it } from "vitest";
import { type Ctx, nextLink, pathOf, seedPets, useServer } from "./support.ts";

/** A GET whose body is read as the bytes sent (fetch would decode them), with exactly `headers`. */
function getRaw(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  method = "GET",
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}${path}`, { method, headers }, (response) => {
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

const STRONG = /^"[A-Za-z0-9_-]{27}"$/;

describe("conditional GET and compression (postgres)", () => {
  const t: Ctx = useServer("postgres");
  let ids: number[] = [];

  beforeAll(async () => {
    ids = await seedPets(t.s, 120, (i) => ({ name: `conditional ${i}`, status: "available" }));
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    t.call(path.startsWith("/v1/pets/") ? "getPet" : "listPets", path, {
      headers: { ...t.auth(), "accept-encoding": "identity", ...headers },
    });

  describe("ETag and If-None-Match", () => {
    it("tags a page and answers 304 without content to a request naming its tag", async () => {
      const first = await get("/v1/pets?limit=5");
      const etag = first.headers.get("etag") ?? "";
      expect(etag).toMatch(STRONG);
      expect(first.headers.get("cache-control")).toBe("private, no-cache, must-revalidate");
      const again = await get("/v1/pets?limit=5");
      expect(again.headers.get("etag")).toBe(etag);

      const cached = await get("/v1/pets?limit=5", { "if-none-match": etag });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe("");
      expect(cached.headers.get("etag")).toBe(etag);
      expect(cached.headers.get("cache-control")).toBe("private, no-cache, must-revalidate");
      expect(cached.headers.get("link")).toBe(first.headers.get("link"));
      expect(cached.headers.get("x-request-id")).not.toBeNull();
      expect(cached.headers.get("x-ratelimit-remaining")).not.toBeNull();
      expect(cached.headers.get("content-type")).toBeNull();
    });

    it("is kept by undici's cache interceptor although the request carries Authorization, and revalidated before each use", async () => {
      const cache = new Agent().compose(interceptors.cache({ type: "private" }));
      const path = "/v1/pets?status=sold&limit=50";
      const get = async () => {
        const answer = await request(`${t.s.baseUrl}${path}`, { dispatcher: cache, headers: t.auth() });
        const pets = (await answer.body.json()) as Array<{ name: string }>;
        return { status: answer.statusCode, age: answer.headers.age, names: pets.map((p) => p.name) };
      };
      try {
        const first = await get();
        expect(first).toMatchObject({ status: 200, age: undefined });
        // From the cache (an Age header), after the server said 304 to its If-None-Match.
        const kept = await get();
        expect(kept.status).toBe(200);
        expect(kept.age).toMatch(/^\d+$/);
        expect(kept.names).toEqual(first.names);
        expect(
          (await t.create({ name: "revalidated", categoryId: t.s.categoryIds[0], status: "sold" })).status,
        ).toBe(201);
        // Never served stale: the next use asks the server again and gets the changed page.
        expect((await get()).names).toEqual([...first.names, "revalidated"]);
      } finally {
        await cache.close();
      }
    });

    it("compares weakly and reads lists and *, as RFC 9110 section 13.1.2 says", async () => {
      const etag = (await get("/v1/pets?limit=6")).headers.get("etag") ?? "";
      for (const header of [`W/${etag}`, `"other", ${etag}`, `W/"x",W/${etag}`, "*"])
        expect((await get("/v1/pets?limit=6", { "if-none-match": header })).status, header).toBe(304);
      for (const header of ['"other"', etag.slice(1, -1), `${etag.slice(0, -2)}x"`, ""])
        expect((await get("/v1/pets?limit=6", { "if-none-match": header })).status, header).toBe(200);
    });

    it("answers a HEAD with If-None-Match 304 too", async () => {
      const etag = (await get("/v1/pets?limit=7")).headers.get("etag") ?? "";
      const head = await t.call(null, "/v1/pets?limit=7", {
        method: "HEAD",
        headers: { ...t.auth(), "if-none-match": etag },
      });
      expect(head.status).toBe(304);
    });

    it("gives a page a new tag when an animal on it changes", async () => {
      const path = `/v1/pets?limit=3&status=available`;
      const before = await get(path);
      const etag = before.headers.get("etag") ?? "";
      await databaseOf(t.s.rt).prisma.pet.update({
        where: { id: BigInt(ids[1] ?? 0) },
        data: { name: `renamed pg` },
      });
      const after = await get(path, { "if-none-match": etag });
      expect(after.status).toBe(200);
      expect(after.headers.get("etag")).not.toBe(etag);
      expect(JSON.stringify(after.body)).toContain(`renamed pg`);
    });

    it("gives the last page a new tag when a next link appears, though its animals are the same", async () => {
      // The pending animals: a page that holds all of them has no next link until one more is added.
      await seedPets(t.s, 2, () => ({ status: "pending" }));
      const path = "/v1/pets?limit=2&status=pending";
      const full = await get(path);
      expect((full.body as unknown[]).length).toBe(2);
      expect(nextLink(full.headers)).toBeUndefined();
      await seedPets(t.s, 1, () => ({ status: "pending" }));
      const grown = await get(path, { "if-none-match": full.headers.get("etag") ?? "" });
      expect(grown.status).toBe(200);
      expect(grown.text).toBe(full.text);
      expect(nextLink(grown.headers)).toBeDefined();
      expect(pathOf(nextLink(grown.headers) ?? "")).toContain("cursor=");
    });

    it("tags an animal, keeping the lifecycle headers on its 304", async () => {
      const first = await get(`/v1/pets/${ids[0]}`);
      const etag = first.headers.get("etag") ?? "";
      expect(etag).toMatch(STRONG);
      const cached = await get(`/v1/pets/${ids[0]}`, { "if-none-match": etag });
      expect(cached.status).toBe(304);
      for (const name of ["deprecation", "sunset", "link", "etag"])
        expect(cached.headers.get(name), name).toBe(first.headers.get(name));
    });

    it("counts a 304 against the key's window like any request", async () => {
      const etag = (await get("/v1/pets?limit=8")).headers.get("etag") ?? "";
      const a = await get("/v1/pets?limit=8", { "if-none-match": etag });
      const b = await get("/v1/pets?limit=8", { "if-none-match": etag });
      expect([a.status, b.status]).toEqual([304, 304]);
      expect(Number(b.headers.get("x-ratelimit-remaining"))).toBe(
        Number(a.headers.get("x-ratelimit-remaining")) - 1,
      );
    });

    it("puts no ETag on an error, and ignores If-None-Match there", async () => {
      const missing = await get("/v1/pets/999999999", { "if-none-match": "*" });
      expect(missing.status).toBe(404);
      expect(missing.headers.get("etag")).toBeNull();
      const bad = await get("/v1/pets?limit=0", { "if-none-match": "*" });
      expect(bad.status).toBe(400);
    });
  });

  describe("compression", () => {
    const auth = () => t.auth();

    it("sends a full page gzip-compressed to a client that accepts gzip, with Vary and a weak ETag", async () => {
      const plain = await getRaw(t.s.baseUrl, "/v1/pets?limit=100", { ...auth() });
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.headers.vary).toBe("Origin, Accept-Encoding");
      expect(plain.headers.etag).toMatch(STRONG);

      const gzip = await getRaw(t.s.baseUrl, "/v1/pets?limit=100", { ...auth(), "accept-encoding": "gzip" });
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      expect(gzip.headers.vary).toBe("Origin, Accept-Encoding");
      expect(gzip.headers.etag).toBe(`W/${plain.headers.etag}`);
      expect(Number(gzip.headers["content-length"])).toBe(gzip.bytes.length);
      expect(gzip.bytes.length).toBeLessThan(plain.bytes.length / 3);
      expect(zlib.gunzipSync(gzip.bytes).equals(plain.bytes)).toBe(true);

      // Either tag revalidates either representation.
      for (const tag of [plain.headers.etag, gzip.headers.etag]) {
        const cached = await getRaw(t.s.baseUrl, "/v1/pets?limit=100", {
          ...auth(),
          "accept-encoding": "gzip",
          "if-none-match": tag ?? "",
        });
        expect(cached.status).toBe(304);
        expect(cached.headers.etag).toBe(gzip.headers.etag);
        expect(cached.headers.vary).toBe("Origin, Accept-Encoding");
        expect(cached.bytes.length).toBe(0);
      }
    });

    it("sends br when the client ranks it first, and follows q-values", async () => {
      const plain = await getRaw(t.s.baseUrl, "/v1/pets?limit=50", auth());
      const br = await getRaw(t.s.baseUrl, "/v1/pets?limit=50", { ...auth(), "accept-encoding": "br, gzip" });
      expect(br.headers["content-encoding"]).toBe("br");
      expect(zlib.brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
      const preferred = await getRaw(t.s.baseUrl, "/v1/pets?limit=50", {
        ...auth(),
        "accept-encoding": "br;q=0.5, gzip",
      });
      expect(preferred.headers["content-encoding"]).toBe("gzip");
      for (const refused of ["identity", "gzip;q=0, br;q=0", "deflate", "compress, zstd"]) {
        const r = await getRaw(t.s.baseUrl, "/v1/pets?limit=50", { ...auth(), "accept-encoding": refused });
        expect(r.headers["content-encoding"], refused).toBeUndefined();
        expect(r.bytes.equals(plain.bytes), refused).toBe(true);
      }
    });

    it("leaves a body of 1 KiB or less as it is, not varying by Accept-Encoding", async () => {
      const small = await getRaw(t.s.baseUrl, `/v1/pets/${ids[0]}`, { ...auth(), "accept-encoding": "gzip" });
      expect(small.status).toBe(200);
      expect(small.bytes.length).toBeLessThanOrEqual(1024);
      expect(small.headers["content-encoding"]).toBeUndefined();
      expect(small.headers.vary).toBe("Origin");
    });

    it("compresses an error over 1 KiB too", async () => {
      const body = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`unknown${i}`, i]));
      const r = await fetch(`${t.s.baseUrl}/v1/pets`, {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json", "accept-encoding": "gzip" },
        body: JSON.stringify(body),
      });
      expect(r.status).toBe(400);
      expect(r.headers.get("content-encoding")).toBe("gzip");
      expect(r.headers.get("etag")).toBeNull();
      expect(((await r.json()) as { code: string }).code).toBe("validation_failed");
    });
  });

  describe("the OpenAPI document", () => {
    it("is cacheable for 5 minutes, tagged, revalidated with 304 and compressed", async () => {
      const plain = await getRaw(t.s.baseUrl, "/v1/openapi.json", {});
      expect(plain.status).toBe(200);
      expect(plain.headers["cache-control"]).toBe("public, max-age=300");
      expect(plain.headers.etag).toMatch(STRONG);
      for (const [coding, decode] of [
        ["br", zlib.brotliDecompressSync],
        ["gzip", zlib.gunzipSync],
      ] as const) {
        const packed = await getRaw(t.s.baseUrl, "/v1/openapi.json", { "accept-encoding": coding });
        expect(packed.headers["content-encoding"]).toBe(coding);
        expect(packed.bytes.length).toBeLessThan(plain.bytes.length / 4);
        expect(decode(packed.bytes).equals(plain.bytes)).toBe(true);
      }
      const cached = await getRaw(t.s.baseUrl, "/v1/openapi.json", {
        "if-none-match": plain.headers.etag ?? "",
      });
      expect(cached.status).toBe(304);
      expect(cached.headers["cache-control"]).toBe("public, max-age=300");
    });
  });
});
