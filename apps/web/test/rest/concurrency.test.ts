/**
 * Concurrent use (docs/contract.md section 1): parallel creates get distinct ids; parallel retries with one
 * Idempotency-Key create exactly one animal; keyset paging returns every existing animal exactly once
 * while others are being created.
 */

import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { nextLink, pathOf, seedPets, useServer } from "./support.ts";

type Animal = { id: number; name: string; categoryId: number; status?: string };

describe("concurrency (postgres)", () => {
  const t = useServer("postgres");

  it("50 parallel creates with distinct bodies get 50 distinct ids", async () => {
    const before = await t.petCount();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.create({ name: `Parallel ${i}`, categoryId: t.s.categoryIds[i % 3] }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const animals = results.map((r) => r.body as Animal);
    expect(new Set(animals.map((a) => a.id)).size).toBe(50);
    animals.forEach((a, i) => {
      expect(a.name).toBe(`Parallel ${i}`);
    });
    expect(new Set(results.map((r) => r.headers.get("location"))).size).toBe(50);
    expect(await t.petCount()).toBe(before + 50);
  });

  it("20 parallel creates with one Idempotency-Key and one body create exactly one animal", async () => {
    const before = await t.petCount();
    const key = `parallel-pg-${Date.now()}`;
    const body = { name: "Only once", categoryId: t.s.categoryIds[0], status: "available" };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.create(body, { "idempotency-key": key })),
    );
    for (const r of results) {
      expect([201, 409]).toContain(r.status);
      if (r.status === 409) {
        expect((r.body as { code: string }).code).toBe("idempotency_key_in_use");
        expect(r.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
      }
    }
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => (r.body as Animal).id)).size).toBe(1);
    expect(new Set(created.map((r) => r.headers.get("location"))).size).toBe(1);
    expect(await t.petCount()).toBe(before + 1);
    // Once settled, a retry replays it.
    const retry = await t.create(body, { "idempotency-key": key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(created[0]?.body);
    expect(await t.petCount()).toBe(before + 1);
  });

  it("parallel requests with one key and different bodies: one wins, the others 409 or 422", async () => {
    const before = await t.petCount();
    const key = `race-pg-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.create({ name: `Racer ${i}`, categoryId: t.s.categoryIds[0] }, { "idempotency-key": key }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const s of statuses) expect([201, 409, 422]).toContain(s);
    expect(await t.petCount()).toBe(before + 1);
  });

  it("walking pages while others insert returns every pre-existing animal exactly once", async () => {
    await seedPets(t.s, 60, (i) => ({ name: `walk ${i}`, status: i % 2 ? "pending" : "available" }));
    const existing = (
      await databaseOf(t.s.rt).prisma.pet.findMany({ select: { id: true }, orderBy: { id: "asc" } })
    ).map((p) => Number(p.id));
    const existingPending = (
      await databaseOf(t.s.rt).prisma.pet.findMany({
        where: { status: "pending" },
        select: { id: true },
        orderBy: { id: "asc" },
      })
    ).map((p) => Number(p.id));

    let inserting = true;
    let inserted = 0;
    const writer = (async () => {
      while (inserting) {
        const r = await t.create({
          name: `new ${inserted}`,
          categoryId: t.s.categoryIds[1],
          status: "pending",
        });
        expect(r.status).toBe(201);
        inserted++;
      }
    })();

    const walk = async (query: string) => {
      const seen: number[] = [];
      let path: string | undefined = `/v1/pets${query}`;
      let pages = 0;
      while (path && pages < 200) {
        const r = await t.call("listPets", path, { headers: t.auth() });
        expect(r.status).toBe(200);
        seen.push(...(r.body as Animal[]).map((a) => a.id));
        const next = nextLink(r.headers);
        path = next ? pathOf(next) : undefined;
        pages++;
        // Let the writer get some inserts in between pages.
        await new Promise((resolve) => setTimeout(resolve, 2));
        if (pages > 30) inserting = false;
      }
      return seen;
    };
    try {
      const all = await walk("?limit=7");
      const pending = await walk("?limit=7&status=pending");
      inserting = false;
      await writer;
      for (const [seen, expected] of [
        [all, existing],
        [pending, existingPending],
      ] as const) {
        expect(new Set(seen).size).toBe(seen.length);
        const seenSet = new Set(seen);
        expect(expected.filter((id) => !seenSet.has(id))).toEqual([]);
        expect([...seen].sort((a, b) => a - b)).toEqual(seen);
      }
      expect(inserted).toBeGreaterThan(0);
    } finally {
      inserting = false;
      await writer;
    }
  });
});
