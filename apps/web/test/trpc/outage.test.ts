/**
 * A database outage on the dashboard API answers like the REST API (docs/contract.md section 1 "Error body":
 * 503 `service_unavailable` with Retry-After, nothing internal sent), whether the outage hits while the
 * session is read (the context) or inside a procedure, and the service resumes when the database is back.
 * The calls go through the real HTTP handler; PostgreSQL is reached through a TCP proxy the test cuts.
 */
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleTrpcRequest } from "../../src/server/trpc/handler";
import { PASSWORD } from "../support/common.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";
import { TEST_PASSWORD_HASH_COST } from "./support";

const ORIGIN = "http://dashboard.test";
const EMAIL = "admin@outage.test";

/** One tRPC call over HTTP: a query (GET) when `input` is undefined, else a mutation (POST). */
async function call(rt: Runtime, path: string, input?: unknown, cookie?: string) {
  const headers: Record<string, string> = { origin: ORIGIN, "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  const response = await handleTrpcRequest(
    rt,
    new Request(`${ORIGIN}/api/trpc/${path}`, {
      method: input === undefined ? "GET" : "POST",
      headers,
      body: input === undefined ? undefined : JSON.stringify(input),
    }),
  );
  return { response, text: await response.text() };
}

describe("tRPC while PostgreSQL is down", () => {
  const proxy = new TcpProxy(5432);
  let database: TemporaryDatabase;
  let rt: Runtime;
  let cookie = "";

  beforeAll(async () => {
    await proxy.open();
    database = await createMigratedDatabase("petstore_trpc_outage");
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const config = loadConfig({
      DATABASE_URL: url.toString(),
      LOG_LEVEL: "silent",
      PUBLIC_BASE_URL: ORIGIN,
      PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
    });
    rt = await openRuntime({ config, logger: createLogger("silent") });
    await rt.users.create({ email: EMAIL, name: "Ada", role: "admin", password: PASSWORD }, "test");
    const signIn = await call(rt, "auth.signIn", { email: EMAIL, password: PASSWORD });
    expect(signIn.response.status).toBe(200);
    cookie = (signIn.response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  });

  afterAll(async () => {
    await rt?.close();
    await proxy.cut();
    await database?.drop();
  });

  function expectUnavailable({ response, text }: { response: Response; text: string }) {
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    const { error } = JSON.parse(text);
    expect(error.data).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      httpStatus: 503,
      appCode: "service_unavailable",
      retryAfterSeconds: Number(response.headers.get("retry-after")),
    });
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|5432|prisma|stack/i);
  }

  it("answers 503 service_unavailable with Retry-After, then serves again once the database is back", async () => {
    expect((await call(rt, "auth.me", undefined, cookie)).response.status).toBe(200);
    await proxy.cut();
    // Reading the session (the context) needs the database ...
    expectUnavailable(await call(rt, "auth.me", undefined, cookie));
    expectUnavailable(await call(rt, "apiKeys.list", undefined, cookie));
    // ... and so does a procedure of a caller without a session.
    expectUnavailable(await call(rt, "auth.signIn", { email: EMAIL, password: PASSWORD }));
    await proxy.open();
    const back = await call(rt, "auth.me", undefined, cookie);
    expect(back.response.status).toBe(200);
    expect(JSON.parse(back.text).result.data).toMatchObject({ email: EMAIL });
  });
});
