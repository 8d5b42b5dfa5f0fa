/**
 * GET /v1/pets (listPets): limit bounds and default, status filter, keyset paging through RFC 8288
 * `Link: rel="next"` built from PUBLIC_BASE_URL, tampered and foreign cursors, unknown parameters, body shape.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type ErrorBody, expectError, nextLink, pathOf, rawRequest, seedPets, useServer } from "./support.ts";

type Animal = { id: number; name: string; categoryId: number; status?: string };

const STATUSES = ["available", "pending", "sold", null] as const;

describe("listPets (postgres)", () => {
  const t = useServer("postgres");
  let ids: number[] = [];
  /** Seeded: 45 animals cycling available, pending, sold, (none). */
  const statusOf = (i: number) => STATUSES[i % STATUSES.length];

  beforeAll(async () => {
    ids = await seedPets(t.s, 45, (i) => ({ name: `pet ${i}`, status: statusOf(i) }));
  });

  const list = (query = "", headers: Record<string, string> = t.auth()) =>
    t.call("listPets", `/v1/pets${query}`, { headers });

  /** Follows `next` links from `first`, returning every page's items. */
  async function walk(first: string): Promise<{ pages: Animal[][]; links: string[] }> {
    const pages: Animal[][] = [];
    const links: string[] = [];
    let path: string | undefined = first;
    while (path) {
      const r = await list(path);
      expect(r.status).toBe(200);
      pages.push(r.body as Animal[]);
      const next = nextLink(r.headers);
      if (next) links.push(next);
      path = next ? pathOf(next).replace(/^\/v1\/pets/, "") : undefined;
      expect(pages.length).toBeLessThan(100);
    }
    return { pages, links };
  }

  it("returns 20 animals by default in ascending id order", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    const body = r.body as Animal[];
    expect(body).toHaveLength(20);
    expect(body.map((a) => a.id)).toEqual(ids.slice(0, 20));
    expect(body[0]).toMatchObject({ name: "pet 0", categoryId: t.s.categoryIds[0], status: "available" });
  });

  it("accepts limit 1 and 100 and returns at most that many", async () => {
    expect(((await list("?limit=1")).body as Animal[]).map((a) => a.id)).toEqual([ids[0]]);
    const all = await list("?limit=100");
    expect(all.status).toBe(200);
    expect((all.body as Animal[]).map((a) => a.id)).toEqual(ids);
    expect(all.headers.get("link")).toBeNull();
  });

  it.each(["0", "101", "-1", "1.5", "abc", "", "1e1", "+5", "%20", "5&limit=6"])(
    "rejects limit=%s with 400 validation_failed on path limit",
    async (value) => {
      const r = await list(`?limit=${value}`);
      const e = expectError(r, 400, "validation_failed");
      expect(e.details?.map((d) => d.path)).toContain("limit");
    },
  );

  it("omits status when unset and never sends null", async () => {
    const body = (await list("?limit=100")).body as Animal[];
    for (const animal of body) {
      expect(Object.values(animal)).not.toContain(null);
      expect(Object.keys(animal).sort()).toEqual(
        animal.status === undefined ? ["categoryId", "id", "name"] : ["categoryId", "id", "name", "status"],
      );
    }
    expect(body.filter((a) => a.status === undefined)).toHaveLength(11);
  });

  it.each(["available", "pending", "sold"])("filters by status=%s", async (status) => {
    const r = await list(`?status=${status}&limit=100`);
    expect(r.status).toBe(200);
    const expected = ids.filter((_, i) => statusOf(i) === status);
    expect((r.body as Animal[]).map((a) => a.id)).toEqual(expected);
    expect((r.body as Animal[]).every((a) => a.status === status)).toBe(true);
  });

  it.each(["bad", "", "AVAILABLE", "none", "null"])(
    "rejects status=%s with 400 on path status",
    async (status) => {
      const e = expectError(await list(`?status=${status}`), 400, "validation_failed");
      expect(e.details?.map((d) => d.path)).toContain("status");
    },
  );

  it("announces the next page with an absolute Link from PUBLIC_BASE_URL, not the Host header", async () => {
    const r = await list("?limit=7&status=available", { ...t.auth(), "x-forwarded-host": "evil.example" });
    expect(r.status).toBe(200);
    const link = r.headers.get("link") ?? "";
    expect(link).toMatch(/^<https:\/\/api\.test\.example\/v1\/pets\?[^>]+>; rel="next"$/);
    const url = new URL(nextLink(r.headers) ?? "");
    expect(url.origin).toBe("https://api.test.example");
    expect(url.searchParams.get("limit")).toBe("7");
    expect(url.searchParams.get("status")).toBe("available");
    expect(url.searchParams.get("cursor")).toMatch(/\S+/);
    expect(link).not.toContain("127.0.0.1");
  });

  it("never builds the Link from a forged Host header", async () => {
    const r = await rawRequest(t.s.baseUrl, {
      method: "GET",
      path: "/v1/pets?limit=2",
      headers: { ...t.auth(), Host: "attacker.example" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.link).toMatch(/^<https:\/\/api\.test\.example\/v1\/pets\?/);
    expect(r.headers.link).not.toContain("attacker");
  });

  it("has no Link on the last page, nor when everything fits", async () => {
    const fits = await list("?limit=45");
    expect((fits.body as Animal[]).length).toBe(45);
    expect(fits.headers.get("link")).toBeNull();
    const { pages, links } = await walk("?limit=20");
    expect(pages.map((p) => p.length)).toEqual([20, 20, 5]);
    expect(links).toHaveLength(2);
  });

  it.each([
    ["no filter", "", 1],
    ["no filter", "", 7],
    ["available", "&status=available", 3],
    ["sold", "&status=sold", 4],
  ])(
    "walking the next links (%s%s, limit %i) returns every matching animal exactly once",
    async (_l, filter, limit) => {
      const { pages, links } = await walk(`?limit=${limit}${filter}`);
      const seen = pages.flat().map((a) => a.id);
      const status = new URLSearchParams(filter.slice(1)).get("status");
      const expected = ids.filter((_, i) => status === null || statusOf(i) === status);
      expect(seen).toEqual(expected);
      for (const link of links) {
        const url = new URL(link);
        expect(url.searchParams.get("limit")).toBe(String(limit));
        expect(url.searchParams.get("status")).toBe(status);
      }
    },
  );

  it("a page that ends exactly at the last match carries no Link", async () => {
    const sold = ids.filter((_, i) => statusOf(i) === "sold").length;
    const { pages } = await walk(`?status=sold&limit=${sold}`);
    expect(pages.flat()).toHaveLength(sold);
    expect(pages.length).toBe(1);
  });

  describe("cursor", () => {
    let cursor = "";
    beforeAll(async () => {
      const r = await list("?limit=5&status=pending");
      cursor = new URL(nextLink(r.headers) ?? "").searchParams.get("cursor") ?? "";
      expect(cursor).not.toBe("");
    });

    it("continues after the previous page", async () => {
      const r = await list(`?limit=5&status=pending&cursor=${encodeURIComponent(cursor)}`);
      expect(r.status).toBe(200);
      const pending = ids.filter((_, i) => statusOf(i) === "pending");
      expect((r.body as Animal[]).map((a) => a.id)).toEqual(pending.slice(5, 10));
    });

    it("may be used with another limit", async () => {
      const r = await list(`?limit=2&status=pending&cursor=${encodeURIComponent(cursor)}`);
      expect(r.status).toBe(200);
      expect(r.body).toHaveLength(2);
    });

    it("rejects a cursor issued for another status filter (or none) with 400", async () => {
      for (const filter of ["&status=available", "&status=sold", ""]) {
        const e = expectError(
          await list(`?limit=5${filter}&cursor=${encodeURIComponent(cursor)}`),
          400,
          "validation_failed",
        );
        expect(e.details?.map((d) => d.path)).toContain("cursor");
      }
    });

    it("rejects tampered cursors with 400", async () => {
      const [payload = "", signature = ""] = cursor.split(".");
      const decoded = JSON.parse(Buffer.from(payload, "base64url").toString()) as { a: string };
      const forged = Buffer.from(JSON.stringify({ ...decoded, a: "1" })).toString("base64url");
      const flip = (s: string) => s.slice(0, -1) + (s.endsWith("A") ? "B" : "A");
      const tampered = [
        `${forged}.${signature}`,
        `${payload}.${flip(signature)}`,
        `${flip(payload)}.${signature}`,
        payload,
        `${cursor}.x`,
        "x",
        "....",
        "x".repeat(201),
        Buffer.from(JSON.stringify({ a: "1", s: "pending" })).toString("base64url"),
      ];
      for (const bad of tampered) {
        const r = await list(`?limit=5&status=pending&cursor=${encodeURIComponent(bad)}`);
        const e = expectError(r, 400, "validation_failed");
        expect(e.details?.map((d) => d.path)).toContain("cursor");
      }
    });

    it("rejects an empty cursor", async () => {
      expectError(await list("?status=pending&cursor="), 400, "validation_failed");
    });
  });

  it("ignores unknown query parameters", async () => {
    const r = await list("?limit=3&foo=bar&offset=10&page=2&sort=desc&status_=x&LIMIT=999");
    expect(r.status).toBe(200);
    expect((r.body as Animal[]).map((a) => a.id)).toEqual(ids.slice(0, 3));
  });

  it("an error body names the problem", async () => {
    const e = (await list("?limit=0")).body as ErrorBody;
    expect(e.message).toMatch(/limit/);
    expect(e.details?.[0]?.message).toBeTruthy();
  });

  it("answers HEAD like GET without a body", async () => {
    const r = await t.call("listPets", "/v1/pets?limit=2", { method: "HEAD", headers: t.auth() });
    expect(r.status).toBe(200);
    expect(r.text).toBe("");
    expect(r.headers.get("link")).toMatch(/rel="next"/);
  });

  it("requires a key", async () => {
    const r = await list("?limit=0", {});
    expectError(r, 401, "unauthorized");
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="petstore"');
  });
});
