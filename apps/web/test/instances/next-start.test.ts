/**
 * The API on a host without server.ts: the production build under plain `next start`, where Next's route handler
 * app/v1 serves the same REST app (src/server/rest/handler.ts `nextRestFetch`) and the Next routes serve the
 * probes. Only what differs between the two mounts is checked here (the REST suites cover the app itself through
 * server.ts's mount): bodies arrive as web streams (JSON, chunked and oversized bodies), the client address comes
 * from the proxy's X-Forwarded-For (TRUST_PROXY is required there), and the runtime is opened by Next's start-up hook.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/common.ts";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startNextStart,
} from "./production-server.ts";

describe("the REST API under plain `next start` (TRUST_PROXY)", () => {
  let db: PreparedDatabase;
  let server: ProductionServer;
  let key: string;
  let categoryId: number;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await prepareDatabase("petstore_next_start");
    key = (
      await db.rt.apiKeys.create(
        { name: "next", plan: "enterprise", perMinute: 10_000, perDay: 100_000 },
        "t",
      )
    ).key;
    categoryId = (await db.rt.categories.list())[0]?.id ?? 1;
    const port = await freePort();
    server = await startNextStart(port, {
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TRUST_PROXY: "1",
      ANONYMOUS_PER_MINUTE: "3",
      // Refusals answered at once: the hold is not what this file checks.
      ANONYMOUS_REFUSAL_DELAY_MS: "0",
    });
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  const v1 = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}/v1${path}`, init);
  const auth = () => ({ authorization: `Bearer ${key}` });

  it("serves the probes and a page of animals", async () => {
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    const page = await v1("/pets?limit=2", { headers: auth() });
    expect(page.status).toBe(200);
    expect(await page.json()).toHaveLength(2);
    expect(page.headers.get("x-ratelimit-limit")).toBe("10000");
  });

  it("reads a JSON body from the web stream, and refuses broken and oversized ones", async () => {
    const created = await v1("/pets", {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ name: "Nemo", categoryId }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: "Nemo", categoryId });
    const broken = await v1("/pets", {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: "{",
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ code: "invalid_request" });
    // Chunked (no Content-Length): the size is known only while reading.
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${server.baseUrl}/v1/pets`, {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json", "transfer-encoding": "chunked" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.write(`{"name":"${"x".repeat(20_000)}"`);
      req.end(`,"categoryId":${categoryId}}`);
    });
    expect(status).toBe(413);
  });

  it("limits requests without a key per X-Forwarded-For address", async () => {
    const anonymous = (ip: string) => v1("/pets", { headers: { "x-forwarded-for": ip } });
    for (let i = 0; i < 3; i++) expect((await anonymous("198.51.100.7")).status).toBe(401);
    expect((await anonymous("198.51.100.7")).status).toBe(429);
    expect((await anonymous("198.51.100.8")).status).toBe(401);
  });
});
