/**
 * `startTestServer`: the REST API on a test database with a movable clock, reached in-process (`fetch`: the
 * handler after server.ts's client-address stamp) or over a socket of this process (`baseUrl`).
 */
import http, { type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@petstore/config";
import { type Clock, createLogger, openRuntime, type Runtime } from "@petstore/core";
import { migrate } from "@petstore/core/migrate";
import { databaseOf } from "@petstore/core/testing";
import {
  CLIENT_IP_HEADER,
  stampClientIp,
  TRUSTED_HOPS_HEADER,
  type TrustProxy,
} from "../../src/server/client-ip.ts";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { createRestFetch, type RestFetch } from "../../src/server/rest/handler.ts";
import { type DatabaseKind, GENEROUS, openTestDatabase } from "./database.ts";

export type { DatabaseKind };

/** The peer address of every in-process request (what the socket of a local client says). */
export const IN_PROCESS_PEER = "127.0.0.1";

/** `fetch(path, init)` against one server: `path` is resolved against its base URL. */
export type PathFetch = (path: string, init?: RequestInit) => Promise<Response>;

export interface TestServer {
  /** `http://127.0.0.1:<port>`: the real socket, for tests about HTTP itself. */
  baseUrl: string;
  /**
   * Serves `path` with `init` in-process (`inProcessFetch`): the handler and client-address stamp the socket
   * uses, no HTTP parsing. Bodies are never decoded: send no `accept-encoding` to read them as text.
   */
  fetch: PathFetch;
  /** A valid enterprise key (100 000 requests a minute). */
  key: string;
  rt: Runtime;
  categoryIds: number[];
  /** Moves the injected clock (ms). */
  setNow(date: Date): void;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Configuration on top of the harness's; a DATABASE_URL or PGLITE_DIR here is used instead of a fresh one. */
  env?: Record<string, string>;
  /** True when the database `env` names is migrated already (else the runtime migrates it when it opens). */
  migrated?: boolean;
  now?: Date;
}

/** The byte length a client announces in Content-Length for `body`; undefined for a stream or no body. */
function sizeOf(body: RequestInit["body"]): number | undefined {
  if (typeof body === "string") return Buffer.byteLength(body);
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength;
  return undefined;
}

/**
 * A `fetch` that hands requests to `handler` in-process, as `fetchListener` would after reading them from a
 * socket of `IN_PROCESS_PEER`: `stampClientIp` (the function server.ts runs) sets the client address header,
 * and the trusted hop count, replacing any a client sent, from X-Forwarded-For only as `trustProxy` (TRUST_PROXY) says; a sized body gets the
 * Content-Length a client sends, a stream none (chunked).
 */
export function inProcessFetch(handler: RestFetch, baseUrl: string, trustProxy: TrustProxy): PathFetch {
  return (path, init = {}) => {
    const headers = new Headers(init.headers);
    const size = sizeOf(init.body);
    if (size !== undefined && !headers.has("content-length")) headers.set("content-length", String(size));
    const message = {
      headers: Object.fromEntries(headers),
      rawHeaders: [...headers].flat(),
      socket: { remoteAddress: IN_PROCESS_PEER },
    } as unknown as IncomingMessage;
    stampClientIp(message, trustProxy);
    for (const name of [CLIENT_IP_HEADER, TRUSTED_HOPS_HEADER])
      headers.set(name, String(message.headers[name]));
    return handler(new Request(new URL(path, baseUrl), { ...init, headers }));
  };
}

/**
 * Opens a runtime on a fresh migrated database of `kind` (or on the one `options.env` names, migrating it),
 * seeds three categories (upserted: a restart on the same database finds them), issues a key, and listens on a
 * free port of 127.0.0.1. `close()` stops listening, closes the runtime and removes the fresh database.
 */
export async function startTestServer(
  kind: DatabaseKind,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const given = options.env?.DATABASE_URL !== undefined || options.env?.PGLITE_DIR !== undefined;
  let now: Date | undefined = options.now;
  const clock: Clock = () => now ?? new Date();
  const env = {
    PUBLIC_BASE_URL: "https://api.test.example",
    LOG_LEVEL: "silent",
    // Many anonymous calls come from 127.0.0.1 in these tests; rate-limit tests lower it again.
    ANONYMOUS_PER_MINUTE: "1000000",
    ...options.env,
  };
  const fresh = given
    ? undefined
    : await openTestDatabase({ prefix: "petstore_rest", kind, env, clock, seed: false });
  const rt =
    fresh?.rt ??
    (await openRuntime({
      config: loadConfig(env),
      clock,
      logger: createLogger("silent"),
      ...(options.migrated ? {} : { prepare: migrate }),
    }));
  const config = rt.config;
  // One after the other: tests read the three in id order, and concurrent inserts take ids in any order.
  const categories = [];
  for (const name of ["dogs", "cats", "birds"]) {
    categories.push(
      await databaseOf(rt).prisma.category.upsert({ where: { name }, create: { name }, update: {} }),
    );
  }
  const issued = await rt.apiKeys.create({ name: "test", plan: "enterprise", ...GENEROUS }, "test");
  const handler = createRestFetch(async () => rt);
  // As server.ts: the listener stamps the client address (socket, or X-Forwarded-For with TRUST_PROXY).
  const server = http.createServer(fetchListener(handler, config.trustProxy)).listen(0, "127.0.0.1");
  if (!server.listening) await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    fetch: inProcessFetch(handler, baseUrl, config.trustProxy),
    key: issued.key,
    rt,
    categoryIds: categories.map((c) => Number(c.id)),
    setNow: (date) => {
      now = date;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await (fresh ? fresh.drop() : rt.close());
    },
  };
}
