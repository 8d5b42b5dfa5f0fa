/**
 * Browser access to /v1 (docs/contract.md section 1, "Browsers (CORS)"): every answer readable from any origin
 * with the headers a client reads exposed, preflights answered 204 before authentication and rate limiting
 * (no quota, no usage), and `CORS_ALLOWED_ORIGINS` narrowing the origins.
 */
import { describe, expect, it } from "vitest";
import { CORS_EXPOSED_HEADERS } from "../../src/server/rest/middleware/cors.ts";
import { type Ctx, expectError, useServer } from "./support.ts";

const ORIGIN = "https://editor.swagger.example";

/** A browser's preflight of `method` with `headers` to `path`. */
const preflight = (t: Ctx, path: string, origin = ORIGIN, method = "POST") =>
  t.s.fetch(path, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization,content-type,idempotency-key",
    },
  });

const exposed = (r: { headers: Headers }) =>
  (r.headers.get("access-control-expose-headers") ?? "").split(",").map((h) => h.trim().toLowerCase());

describe("CORS, any origin (postgres)", () => {
  // A small anonymous budget, so that a preflight taken from it would show.
  const t = useServer("postgres", { env: { ANONYMOUS_PER_MINUTE: "50" } });

  it("answers a preflight 204 with the methods, the request headers the API reads and a Max-Age", async () => {
    for (const path of [
      "/v1/pets",
      "/v1/pets/1",
      "/v1/openapi.json",
      "/v1/store/orders",
      "/v1/store/orders/1/cancel",
      "/v1/store/inventory",
    ]) {
      const r = await preflight(t, path);
      expect(r.status, path).toBe(204);
      expect(await r.text()).toBe("");
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      expect(r.headers.get("access-control-allow-methods")).toBe("GET,HEAD,POST,PATCH");
      expect(r.headers.get("access-control-allow-headers")?.toLowerCase().split(",")).toEqual([
        "authorization",
        "content-type",
        "idempotency-key",
        "x-request-id",
        "if-none-match",
        "if-match",
      ]);
      expect(r.headers.get("access-control-max-age")).toBe("7200");
      expect(r.headers.get("access-control-allow-credentials")).toBeNull();
      expect(r.headers.get("x-request-id")).not.toBeNull();
      expect(r.headers.get("content-type")).toBeNull();
      expect(r.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });

  it("counts preflights against no quota and leaves them out of usage analytics", async () => {
    const requests = async () => (await t.s.rt.usage.traffic(undefined, 1)).daily.at(-1)?.total ?? 0;
    const remaining = async () =>
      Number((await t.call(null, "/v1/pets", {})).headers.get("x-ratelimit-remaining"));
    const left = await remaining();
    const before = await requests();
    for (let i = 0; i < 10; i++) expect((await preflight(t, "/v1/pets", ORIGIN, "GET")).status).toBe(204);
    expect(await requests()).toBe(before);
    // The client address's anonymous budget lost only the keyless call made after them.
    expect(await remaining()).toBe(left - 1);
    expect(await requests()).toBe(before + 1);
  });

  it("lets every answer, errors included, be read from any origin, exposing the headers a client reads", async () => {
    const answers = [
      await t.call("listPets", "/v1/pets", { headers: { ...t.auth(), origin: ORIGIN } }),
      await t.call("getPet", "/v1/pets/999999", { headers: { ...t.auth(), origin: ORIGIN } }),
      await t.call(null, "/v1/openapi.json", { headers: { origin: ORIGIN } }),
      await t.call(null, "/v1/nowhere", { headers: { ...t.auth(), origin: ORIGIN } }),
      await t.call(null, "/v1/pets", { method: "DELETE", headers: { ...t.auth(), origin: ORIGIN } }),
      await t.call(null, "/v1/pets", { headers: { origin: "null" } }),
    ];
    for (const r of answers) {
      expect(r.headers.get("access-control-allow-origin"), String(r.status)).toBe("*");
      expect(exposed(r)).toEqual(CORS_EXPOSED_HEADERS.map((h) => h.toLowerCase()));
      expect(r.headers.get("vary")).toContain("Origin");
    }
    for (const name of [
      "x-ratelimit-remaining",
      "retry-after",
      "link",
      "location",
      "etag",
      "www-authenticate",
    ])
      expect(exposed(answers[0] as { headers: Headers })).toContain(name);
  });

  it("answers an OPTIONS that is no preflight 204 with Allow listing the path's methods, at no quota", async () => {
    const remaining = async () =>
      Number((await t.call(null, "/v1/pets", {})).headers.get("x-ratelimit-remaining"));
    const left = await remaining();
    for (const [path, allow] of [
      ["/v1/pets", "GET, HEAD, POST"],
      ["/v1/pets/1", "GET, HEAD, PATCH"],
      ["/v1/store/orders", "GET, HEAD, POST"],
      ["/v1/store/orders/7", "GET, HEAD"],
      ["/v1/store/orders/7/complete", "POST"],
      ["/v1/store/orders/7/cancel", "POST"],
      ["/v1/store/inventory", "GET, HEAD"],
      ["/v1/openapi.json", "GET, HEAD"],
    ]) {
      const plain = await t.s.fetch(path as string, { method: "OPTIONS" });
      expect(plain.status, path).toBe(204);
      expect(await plain.text()).toBe("");
      expect(plain.headers.get("allow"), path).toBe(allow);
      expect(plain.headers.get("access-control-allow-methods")).toBeNull();
      expect(plain.headers.get("access-control-allow-origin")).toBeNull();
      expect(plain.headers.get("x-request-id")).not.toBeNull();
    }
    // With Origin but no Access-Control-Request-Method: an actual cross-origin OPTIONS, readable by the page.
    const actual = await t.s.fetch("/v1/pets", { method: "OPTIONS", headers: { origin: ORIGIN } });
    expect(actual.status).toBe(204);
    expect(actual.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(actual.headers.get("access-control-allow-origin")).toBe("*");
    expect(actual.headers.get("access-control-allow-methods")).toBeNull();
    expect(await remaining()).toBe(left - 1);
    // An unknown path has no methods to list: its 404.
    expectError(await t.call(null, "/v1/nowhere", { method: "OPTIONS" }), 404, "not_found");
  });

  it("sends a call without Origin (server to server) no CORS header but Vary: Origin", async () => {
    const r = await t.call("listPets", "/v1/pets", { headers: t.auth() });
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
    expect(r.headers.get("access-control-expose-headers")).toBeNull();
    expect(r.headers.get("vary")).toBe("Origin");
  });
});

describe("CORS, listed origins (postgres)", () => {
  const t = useServer("postgres", {
    env: { CORS_ALLOWED_ORIGINS: `${ORIGIN}, https://tools.example.com` },
  });

  it("echoes a listed origin with Vary: Origin, and gives any other none", async () => {
    const listed = await t.call("listPets", "/v1/pets", { headers: { ...t.auth(), origin: ORIGIN } });
    expect(listed.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(listed.headers.get("vary")).toContain("Origin");
    expect(exposed(listed)).toContain("x-request-id");

    const other = await t.call("listPets", "/v1/pets", {
      headers: { ...t.auth(), origin: "https://evil.example" },
    });
    // The API still answers (a key authorises, not an origin); the browser keeps it from the page.
    expect(other.status).toBe(200);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.headers.get("vary")).toContain("Origin");

    expectError(await t.call(null, "/v1/pets", { headers: { origin: ORIGIN } }), 401, "unauthorized");
  });

  it("answers the preflight of a listed origin only", async () => {
    const listed = await preflight(t, "/v1/pets", "https://tools.example.com");
    expect(listed.status).toBe(204);
    expect(listed.headers.get("access-control-allow-origin")).toBe("https://tools.example.com");
    const other = await preflight(t, "/v1/pets", "https://evil.example");
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
