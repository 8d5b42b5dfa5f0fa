/**
 * Proxies cannot lie about the client, and tRPC's refusals speak the contract's codes (docs/contract.md section 1),
 * over HTTP against the app served in process behind server.ts's router (in-process.ts): a client-sent client-IP
 * header never buys a fresh anonymous bucket; tRPC's own refusals carry an `appCode` of the closed set. The
 * statuses only the deployed process gives (server.ts's HTTP parser, Next's pages) are tested
 * in production-server.test.ts.
 */
import { describe, expect, it } from "vitest";
import { useInProcessApp } from "./in-process.ts";
import { STAFF, signIn, trpc, trpcBatch } from "./support.ts";

describe("client address behind server.ts", () => {
  const app = useInProcessApp({ ANONYMOUS_PER_MINUTE: "3" });

  it("ignores a client-sent x-petstore-client-ip: rotating it does not escape the anonymous limit", async () => {
    // One minute window throughout.
    app.setNow(new Date((Math.floor(Date.now() / 60_000) + 1) * 60_000 + 5_000));
    const statuses: number[] = [];
    for (let n = 0; n < 5; n++)
      statuses.push(
        await fetch(`${app.baseUrl}/v1/pets`, { headers: { "x-petstore-client-ip": `1.2.3.${n}` } }).then(
          async (r) => {
            await r.arrayBuffer();
            return r.status;
          },
        ),
      );
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe("tRPC errors carry their code of the closed set", () => {
  const app = useInProcessApp();

  it("sets appCode on tRPC's own refusals: not signed in, not allowed, unknown procedure, unparseable input, long batch", async () => {
    const appCode = (r: { body: unknown }) =>
      (r.body as { error?: { data?: { appCode?: string } } }).error?.data?.appCode;
    expect(appCode(await trpc(app, "query", "apiKeys.list", undefined))).toBe("unauthorized");
    const token = await signIn(app, STAFF);
    expect(appCode(await trpc(app, "query", "apiKeys.list", undefined, { token }))).toBe("forbidden");
    expect(appCode(await trpc(app, "query", "nothing.here", undefined))).toBe("not_found");
    const unparseable = await fetch(`${app.baseUrl}/api/trpc/auth.signIn`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    const body = await unparseable.json();
    expect(body.error.data.appCode).toBe("invalid_request");
    expect(unparseable.headers.get("x-request-id")).toBeTruthy();
    const batch = await trpcBatch(
      app,
      Array.from({ length: 11 }, () => ({ path: "auth.signOut", input: undefined })),
    );
    const first = Array.isArray(batch.body) ? batch.body[0] : batch.body;
    expect((first as { error?: { data?: { appCode?: string } } }).error?.data?.appCode).toBe(
      "invalid_request",
    );
  });

  it("answers with one Content-Type, the contract's JSON type, on success and on error", async () => {
    const ok = await fetch(`${app.baseUrl}/api/trpc/auth.me`);
    const refused = await trpc(app, "query", "apiKeys.list", undefined);
    await ok.arrayBuffer();
    expect(ok.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(refused.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });
});

describe("the headers of every answer", () => {
  const app = useInProcessApp();

  it("are the same on JSON answers, errors, probes and an OPTIONS' 204: no-store, nosniff, the request id", async () => {
    const answers = [
      ["GET", "/healthz"],
      ["GET", "/readyz"],
      ["GET", "/v1/pets"],
      ["OPTIONS", "/v1/pets"],
    ] as const;
    for (const [method, path] of answers) {
      const res = await fetch(`${app.baseUrl}${path}`, { method, headers: { "x-request-id": "probe-42" } });
      await res.arrayBuffer();
      expect([path, res.headers.get("cache-control")]).toEqual([path, "no-store"]);
      expect([path, res.headers.get("x-content-type-options")]).toEqual([path, "nosniff"]);
      expect([path, res.headers.get("x-request-id")]).toEqual([path, "probe-42"]);
    }
  });
});
