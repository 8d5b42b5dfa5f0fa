/**
 * GET /v1/pets/{petId} (getPet, deprecated): 200/404, path id bounds, the lifecycle headers on every
 * response (Deprecation, Sunset, successor-version Link), and 410 `gone` from the sunset instant on.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CallResult, expectError, seedPets, useServer } from "./support.ts";

const SUNSET = new Date("2030-12-05T00:00:00Z");

function expectLifecycleHeaders(r: CallResult) {
  expect(r.headers.get("deprecation")).toBe("@1767225600");
  expect(r.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT");
  expect(r.headers.get("link")).toBe('<https://api.test.example/v1/pets>; rel="successor-version"');
}

describe("getPet (postgres)", () => {
  const t = useServer("postgres");
  let id = 0;
  let bare = 0;

  beforeAll(async () => {
    [id = 0] = await seedPets(t.s, 1, () => ({ name: "Fetch me", status: "sold" }));
    [bare = 0] = await seedPets(t.s, 1, () => ({ name: "No status" }));
  });

  afterEach(() => t.s.setNow(new Date()));

  const get = (petId: string | number, headers: Record<string, string> = t.auth()) =>
    t.call("getPet", `/v1/pets/${petId}`, { headers });

  it("returns the animal", async () => {
    const r = await get(id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id, name: "Fetch me", categoryId: t.s.categoryIds[0], status: "sold" });
    expectLifecycleHeaders(r);
  });

  it("omits status when unset", async () => {
    const r = await get(bare);
    expect(r.body).toEqual({ id: bare, name: "No status", categoryId: t.s.categoryIds[0] });
  });

  it("answers 404 not_found for an unknown id, up to 2^63-1", async () => {
    for (const unknown of ["999999", "9007199254740993", "9223372036854775807"]) {
      const r = await get(unknown);
      expectError(r, 404, "not_found");
      expectLifecycleHeaders(r);
    }
  });

  it.each([
    "0",
    "-1",
    "abc",
    "1.5",
    "1e3",
    "0x10",
    "+1",
    "%201",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999",
  ])("answers 400 validation_failed for petId %s", async (petId) => {
    const r = await get(petId);
    const e = expectError(r, 400, "validation_failed");
    expect(e.details?.map((d) => d.path)).toContain("petId");
    expectLifecycleHeaders(r);
  });

  it("carries the lifecycle headers on 401 too", async () => {
    const r = await get(id, {});
    expectError(r, 401, "unauthorized");
    expectLifecycleHeaders(r);
    const bad = await get(id, { authorization: "Bearer pet_test_nope" });
    expectError(bad, 401, "unauthorized");
    expectLifecycleHeaders(bad);
  });

  it("is documented as deprecated with its successor", () => {
    const paths = t.doc.paths as Record<
      string,
      Record<string, { deprecated?: boolean; operationId?: string }>
    >;
    const op = paths["/pets/{petId}"]?.get;
    expect(op?.operationId).toBe("getPet");
    expect(op?.deprecated).toBe(true);
  });

  it("still answers one millisecond before the sunset", async () => {
    t.s.setNow(new Date(SUNSET.getTime() - 1));
    const r = await get(id);
    expect(r.status).toBe(200);
    expectLifecycleHeaders(r);
  });

  it("answers 410 gone from the sunset instant on, with the lifecycle headers", async () => {
    for (const at of [SUNSET, new Date(SUNSET.getTime() + 1), new Date("2031-06-01T00:00:00Z")]) {
      t.s.setNow(at);
      for (const petId of [String(id), "999999"]) {
        const r = await get(petId);
        const e = expectError(r, 410, "gone");
        expect(e.message).toMatch(/\/v1\/pets/);
        expectLifecycleHeaders(r);
      }
    }
  });

  it("answers 410 after the sunset whatever the id looks like", async () => {
    t.s.setNow(SUNSET);
    for (const petId of ["abc", "0", "9223372036854775808"]) {
      const r = await get(petId);
      expectError(r, 410, "gone");
      expectLifecycleHeaders(r);
    }
  });

  it("still requires a key after the sunset", async () => {
    t.s.setNow(SUNSET);
    const r = await get(id, {});
    expectError(r, 401, "unauthorized");
    expectLifecycleHeaders(r);
  });

  it("leaves listPets working after the sunset", async () => {
    t.s.setNow(SUNSET);
    const r = await t.call("listPets", "/v1/pets?limit=1", { headers: t.auth() });
    expect(r.status).toBe(200);
    expect(r.headers.get("deprecation")).toBeNull();
    expect(r.headers.get("sunset")).toBeNull();
  });
});
