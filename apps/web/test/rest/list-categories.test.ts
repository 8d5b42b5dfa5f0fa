/**
 * GET /v1/categories (listCategories), an addition to the interface (docs/contract.md section 1, "GET
 * /v1/categories (listCategories)"): `{ id, name }` in ascending id order, paged exactly as listPets (limit bounds
 * and errors, signed cursors in `Link: rel="next"` from PUBLIC_BASE_URL, an empty page past the end), the
 * `pets:read` scope with listPets' refusal, counted like every operation, and the typed client's calls.
 */
import { createPetStoreClient } from "@petstore/client";
import type { ApiKeyScope } from "@petstore/contracts";
import { databaseOf } from "@petstore/core/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ErrorBody, expectError, nextLink, pathOf, seedPets, useServer } from "./support.ts";

type Category = { id: number; name: string };

describe("listCategories (postgres)", () => {
  const t = useServer("postgres");
  /** Every category, ascending id: the harness's three and seven more. */
  let all: Category[] = [];

  beforeAll(async () => {
    const prisma = databaseOf(t.s.rt).prisma;
    await prisma.category.createMany({ data: Array.from({ length: 7 }, (_, i) => ({ name: `extra ${i}` })) });
    all = (await prisma.category.findMany({ orderBy: { id: "asc" } })).map((c) => ({
      id: Number(c.id),
      name: c.name,
    }));
  });

  afterEach(() => t.s.setNow(new Date()));

  const list = (query = "", headers: Record<string, string> = t.auth()) =>
    t.call("listCategories", `/v1/categories${query}`, { headers });

  const issue = async (scopes: ApiKeyScope[]) =>
    (
      await t.s.rt.apiKeys.create(
        {
          name: `categories ${scopes.join(" ")}`,
          plan: "enterprise",
          perMinute: 1000,
          perDay: 10_000,
          scopes,
        },
        "test",
      )
    ).key;

  it("lists every category as { id, name } in ascending id order, 20 at most by default", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body).toEqual(all);
    expect(all.map((c) => c.name).slice(0, 3)).toEqual(["dogs", "cats", "birds"]);
    expect(r.headers.get("link")).toBeNull();
    expect(r.headers.get("cache-control")).toBe("private, no-cache, must-revalidate");
  });

  it("pages by limit through signed next links built from the public base URL, each category once", async () => {
    const pages: Category[][] = [];
    let path: string | undefined = "/v1/categories?limit=4";
    while (path) {
      const r = await list(path.replace(/^\/v1\/categories/, ""));
      expect(r.status).toBe(200);
      pages.push(r.body as Category[]);
      const next = nextLink(r.headers);
      if (next) {
        const url = new URL(next);
        expect(url.origin + url.pathname).toBe("https://api.test.example/v1/categories");
        expect(url.searchParams.get("limit")).toBe("4");
        expect(url.searchParams.get("cursor")).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
      }
      path = next && pathOf(next);
    }
    expect(pages.map((p) => p.length)).toEqual([4, 4, 2]);
    expect(pages.flat()).toEqual(all);
  });

  it("answers an empty last page when the categories after a cursor are gone", async () => {
    const prisma = databaseOf(t.s.rt).prisma;
    const extra = await prisma.category.create({ data: { name: "short-lived" } });
    const first = await list(`?limit=${all.length}`);
    const next = nextLink(first.headers);
    expect(next).toBeDefined();
    await prisma.category.delete({ where: { id: extra.id } });
    const past = await list(pathOf(next as string).replace(/^\/v1\/categories/, ""));
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    expect(past.headers.get("link")).toBeNull();
  });

  it.each(["0", "101", "-1", "1.5", "abc", "", "0100", "+5", "5&limit=6"])(
    "answers limit=%s with listPets' 400 validation_failed on path limit",
    async (value) => {
      const r = await list(`?limit=${value}`);
      const e = expectError(r, 400, "validation_failed");
      expect(e.details?.map((d) => d.path)).toContain("limit");
      const pets = await t.call("listPets", `/v1/pets?limit=${value}`, { headers: t.auth() });
      expect(e).toEqual(pets.body as ErrorBody);
    },
  );

  it("refuses a tampered cursor and a cursor of listPets (400 on path cursor)", async () => {
    await seedPets(t.s, 3);
    const pets = await t.call("listPets", "/v1/pets?limit=1", { headers: t.auth() });
    const petCursor = new URL(nextLink(pets.headers) as string).searchParams.get("cursor") as string;
    const own = new URL(nextLink((await list("?limit=1")).headers) as string).searchParams.get(
      "cursor",
    ) as string;
    const tampered = `${own.slice(0, -1)}${own.endsWith("A") ? "B" : "A"}`;
    for (const cursor of [petCursor, tampered, "garbage"]) {
      const e = expectError(
        await list(`?limit=1&cursor=${encodeURIComponent(cursor)}`),
        400,
        "validation_failed",
      );
      expect(e.details).toEqual([{ path: "cursor", message: "is not a cursor issued for this query" }]);
    }
    // And the other way round: a category cursor is foreign to listPets.
    expectError(
      await t.call("listPets", `/v1/pets?cursor=${encodeURIComponent(own)}`, { headers: t.auth() }),
      400,
      "validation_failed",
    );
  });

  it("answers 304 to the page's own ETag", async () => {
    const first = await list("?limit=2");
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await list("?limit=2", { ...t.auth(), "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("link")).toBe(first.headers.get("link"));
  });

  it("refuses a key without pets:read exactly as listPets does, and counts the refusal", async () => {
    const writeOnly = await issue(["pets:write"]);
    const r = await list("", t.auth(writeOnly));
    const e = expectError(r, 403, "insufficient_scope");
    const pets = await t.call("listPets", "/v1/pets", { headers: t.auth(writeOnly) });
    expect(e).toEqual(pets.body as ErrorBody);
    expect(r.headers.get("www-authenticate")).toBe(pets.headers.get("www-authenticate"));
    expect(Number(r.headers.get("x-ratelimit-remaining"))).toBe(
      Number(pets.headers.get("x-ratelimit-remaining")) + 1,
    );
    expect((await list("", t.auth(await issue(["pets:read"])))).status).toBe(200);
  });

  it("answers 401 without a valid key", async () => {
    expectError(await list("", {}), 401, "unauthorized");
    expectError(await list("", t.auth("pet_test_notakey")), 401, "unauthorized");
  });

  it("counts each call against the key's limits and in its usage as listCategories", async () => {
    const key = await issue(["pets:read"]);
    const caller = await t.s.rt.apiKeys.authenticate(key);
    // One instant for both calls, so that the minute window does not turn between them.
    t.s.setNow(new Date());
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 2; i++)
      remaining.push((await list("", t.auth(key))).headers.get("x-ratelimit-remaining"));
    expect(remaining).toEqual(["999", "998"]);
    expect(await t.s.rt.usage.requestsToday(caller?.keyId ?? "")).toBe(2);
    const recent = await t.s.rt.usage.recentRequests(caller?.keyId ?? "");
    expect(recent.map((r) => r.operation)).toEqual(["listCategories", "listCategories"]);
  });

  it("is documented in the OpenAPI document with the pets:read scope", () => {
    const paths = t.doc.paths as Record<string, Record<string, { operationId: string; security: unknown }>>;
    expect(paths["/categories"]?.get?.operationId).toBe("listCategories");
    expect(paths["/categories"]?.get?.security).toEqual([{ bearerAuth: ["pets:read"] }]);
  });

  it("is called by the typed client, one page and every page", async () => {
    const client = createPetStoreClient({
      baseUrl: "https://api.test.example/v1",
      apiKey: t.s.key,
      fetch: (request) => {
        const url = new URL(request.url);
        return t.s.fetch(`${url.pathname}${url.search}`, { headers: request.headers });
      },
    });
    const page = await client.listCategories({ limit: 3 });
    expect(page.categories).toEqual(all.slice(0, 3));
    expect(page.next?.limit).toBe(3);
    const walked = [];
    for await (const category of client.categories.all({ limit: 3 })) walked.push(category);
    expect(walked).toEqual(all);
  });
});
