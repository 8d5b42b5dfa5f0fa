/**
 * Test harness: a real REST server over real HTTP on a fresh database (a new PostgreSQL database per run, or an
 * in-memory PGlite), mounted as server.ts mounts it (`fetchListener` over the REST fetch handler), with seeded
 * plans and categories and an issued API key. The clock is injectable. The Next route mount (hosts without
 * server.ts) has its own test against `next start` (test/instances/next-start.test.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@petstore/config";
import { type Clock, createLogger, openRuntime, type Runtime } from "@petstore/core";
import { migrate } from "@petstore/core/migrate";
import { createMigratedDatabase, createMigratedPGliteDir, databaseOf } from "@petstore/core/testing";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { createRestFetch } from "../../src/server/rest/handler.ts";
import { markCustomServer } from "../../src/server/runtime.ts";

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
  // A database named in `env` (a restart on the same store) is migrated here; otherwise a migrated copy is made.
  const given = options.env?.DATABASE_URL ?? options.env?.PGLITE_DIR;
  const temp = !given && kind === "postgres" ? await createMigratedDatabase("petstore_rest") : undefined;
  const folder = !given && kind === "pglite" ? await createMigratedPGliteDir("petstore_rest") : undefined;
  let now: Date | undefined = options.now;
  const clock: Clock = () => now ?? new Date();
  const config = loadConfig({
    ...(temp ? { DATABASE_URL: temp.url } : { PGLITE_DIR: folder?.dir ?? "memory://" }),
    PUBLIC_BASE_URL: "https://api.test.example",
    LOG_LEVEL: "silent",
    // Many anonymous calls come from 127.0.0.1 in these tests; rate-limit tests lower it again.
    ANONYMOUS_PER_MINUTE: "1000000",
    ...options.env,
  });
  const rt = await openRuntime({
    config,
    clock,
    logger: createLogger("silent"),
    ...(given ? { prepare: migrate } : {}),
  });
  const categories = await Promise.all(
    // Upsert, so that a server restarted on the same database (PGLITE_DIR or DATABASE_URL given) starts again.
    ["dogs", "cats", "birds"].map((name) =>
      databaseOf(rt).prisma.category.upsert({ where: { name }, create: { name }, update: {} }),
    ),
  );
  const issued = await rt.apiKeys.create(
    { name: "test", plan: "enterprise", perMinute: 100_000, perDay: 1_000_000 },
    "test",
  );
  const fetch = createRestFetch(async () => rt);
  // This process plays server.ts: it stamps the client address (socket, or X-Forwarded-For with TRUST_PROXY).
  markCustomServer();
  const server = http.createServer(fetchListener(fetch, config.trustProxy)).listen(0, "127.0.0.1");
  if (!server.listening) await new Promise<void>((resolve) => server.once("listening", () => resolve()));
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
      await folder?.remove();
    },
  };
}
