/**
 * Test harness: a real REST server over real HTTP (@hono/node-server serving the same `createRestApp`
 * Next mounts at /v1) on a fresh database — a new PostgreSQL database per run, or an in-memory PGlite —
 * with seeded plans and categories and an issued API key. The clock is injectable.
 */
import type { AddressInfo } from "node:net";
import { type Http2Bindings, type HttpBindings, serve } from "@hono/node-server";
import { loadConfig } from "@petstore/config";
import { type Clock, createLogger, openRuntime, type Runtime } from "@petstore/core";
import { deployMigrations } from "@petstore/db/migrate";
import { createTemporaryDatabase } from "@petstore/db/testing";
import { CLIENT_IP_HEADER, clientIpOf } from "../../src/server/client-ip.ts";
import { createRestApp } from "../../src/server/rest/app.ts";

export type DatabaseKind = "postgres" | "pglite";
export const DATABASE_KINDS: DatabaseKind[] = ["postgres", "pglite"];

export interface TestServer {
  baseUrl: string;
  /** A valid free-plan key unless `plan` says otherwise. */
  key: string;
  rt: Runtime;
  categoryIds: number[];
  /** Moves the injected clock (ms). */
  setNow(date: Date): void;
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  now?: Date;
}

export async function startTestServer(
  kind: DatabaseKind,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const temp = kind === "postgres" ? await createTemporaryDatabase("petstore_rest") : undefined;
  let now: Date | undefined = options.now;
  const clock: Clock = () => now ?? new Date();
  const config = loadConfig({
    ...(temp ? { DATABASE_URL: temp.url } : { PGLITE_DIR: "memory://" }),
    PUBLIC_BASE_URL: "https://api.test.example",
    LOG_LEVEL: "silent",
    // Many anonymous calls come from 127.0.0.1 in these tests; rate-limit tests lower it again.
    ANONYMOUS_PER_MINUTE: "1000000",
    ...options.env,
  });
  const rt = await openRuntime({ config, clock, logger: createLogger("silent"), prepare: deployMigrations });
  const categories = await Promise.all(
    // Upsert, so that a server restarted on the same database (PGLITE_DIR or DATABASE_URL given) starts again.
    ["dogs", "cats", "birds"].map((name) =>
      rt.db.prisma.category.upsert({ where: { name }, create: { name }, update: {} }),
    ),
  );
  const issued = await rt.apiKeys.create(
    { name: "test", plan: "enterprise", perMinute: 100_000, perDay: 1_000_000 },
    "test",
  );
  const app = createRestApp(rt);
  // As server.ts does: the client address comes from the socket (or, with TRUST_PROXY, X-Forwarded-For).
  const server = serve({
    fetch: (request: Request, env: HttpBindings | Http2Bindings) => {
      const headers = new Headers(request.headers);
      headers.set(CLIENT_IP_HEADER, clientIpOf(env.incoming as HttpBindings["incoming"], config.trustProxy));
      return app.fetch(new Request(request, { headers }));
    },
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    key: issued.key,
    rt,
    categoryIds: categories.map((c) => Number(c.id)),
    setNow: (date) => {
      now = date;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rt.close();
      await temp?.drop();
    },
  };
}
