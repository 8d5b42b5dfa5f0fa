/**
 * Production (and dev) HTTP server: Next.js behind a plain node:http server (Next's documented custom
 * server), so the app learns the real client address (`src/server/client-ip.ts`) for per-IP rate limiting.
 * `/v1` goes straight to the REST app (src/server/rest/mount.ts) instead of through Next's router, which
 * cost most of the API's throughput (issue 7); the REST app is the one Next's bundle built, so both mounts
 * share one runtime and one app. GET and HEAD of /healthz, /readyz and /metrics bypass Next's router too (src/server/ops).
 * Everything else (dashboard, /api/trpc, /docs) goes to Next. Methods no route
 * serves and requests Node's parser rejects get JSON answers (src/server/plain-responses.ts).
 * It also applies pending migrations to the embedded PGlite database before Next opens it.
 * Usage: `tsx server.ts` (production build) or `tsx server.ts --dev`. Port from PORT (packages/config).
 */
import http from "node:http";
import { ConfigError, getConfig } from "@petstore/config";
import { translateError } from "@petstore/core/errors";
import { endLogs } from "@petstore/core/logger";
import next from "next";
import { markCustomServer, stampClientIp } from "./src/server/client-ip.ts";
import {
  answerClientError,
  isUnservedMethod,
  methodNotAllowed,
  writeRaw,
} from "./src/server/plain-responses.ts";
import {
  isOpsRequest,
  isRestPath,
  opsFetchPublished,
  publishedOpsFetch,
  publishedRestFetch,
  type RestFetch,
  restFetchPublished,
} from "./src/server/rest/mount.ts";
import { restRequestListener } from "./src/server/rest/node-listener.ts";
import { closeProcessRuntime } from "./src/server/shutdown.ts";

async function main(): Promise<void> {
  const config = getConfig();
  const dev = process.argv.includes("--dev");
  markCustomServer();
  if (config.database.kind === "pglite") {
    // The embedded database is migrated before Next opens it (PGlite allows one opener at a time). Imported
    // here only: the migration runner loads PGlite and Prisma's WASM schema engine (tens of MB of RSS).
    const { migrate } = await import("@petstore/core/migrate");
    const { applied } = await migrate(config.database);
    if (applied.length)
      process.stdout.write(`Applied migrations to the embedded database: ${applied.join(", ")}\n`);
  }
  const app = next({ dev, dir: import.meta.dirname, port: config.port, hostname: "0.0.0.0" });
  const handle = app.getRequestHandler();
  await app.prepare();
  // In production Next runs its start-up hook (instrumentation.ts) in the background, after prepare(); it
  // publishes the REST app and the probes. Listening before that would send the first requests (a load balancer's
  // first /readyz) through Next's router, which switches on its AsyncLocalStorage hooks for the whole process
  // (src/server/ops/handler.ts). A failing start-up hook exits the process (src/server/bootstrap.ts).
  if (!dev) await handlersPublished(START_UP_HOOK_TIMEOUT_MS);
  // Made at start, not on the first /v1 request: it installs the adapter's Request/Response globals
  // (node-listener.ts), and Next must see the same globals whether or not /v1 was called yet.
  const rest = restRequestListener(
    (request) => (publishedRestFetch() as RestFetch)(request),
    config.trustProxy,
  );
  // The probes and /metrics, likewise without Next's router (src/server/ops/handler.ts says why).
  const ops = restRequestListener(
    (request) => (publishedOpsFetch() as RestFetch)(request),
    config.trustProxy,
  );
  const server = http.createServer({ maxHeaderSize: 16 * 1024 }, (req, res) => {
    if (isRestPath(req.url)) {
      // Published when Next's bundle loads the REST app (instrumentation, or the first /v1 request via Next).
      if (publishedRestFetch()) return rest(req, res);
    } else if (isOpsRequest(req.method, req.url) && publishedOpsFetch()) {
      return ops(req, res);
    } else if (isUnservedMethod(req.method)) {
      const { body, headers } = methodNotAllowed(req.method ?? "");
      res.writeHead(405, headers).end(body);
      return;
    }
    stampClientIp(req, config.trustProxy);
    handle(req, res).catch((thrown: unknown) => {
      process.stderr.write(`request failed: ${String(thrown)}\n`);
      const { error } = translateError(thrown); // core's one translator (docs/contract.md section 1)
      if (!res.headersSent)
        res.writeHead(error.status, { "Content-Type": "application/json; charset=utf-8", ...error.headers });
      res.end(JSON.stringify(error.toBody()));
    });
  });
  server.on("clientError", answerClientError);
  // CONNECT never names a path this app serves.
  server.on("connect", (req: http.IncomingMessage, socket) =>
    writeRaw(socket as import("node:net").Socket, 405, "method_not_allowed", req.method ?? "CONNECT"),
  );
  server.listen(config.port, () => process.stdout.write(`Listening on port ${config.port}\n`));
  // Clean stop: no new connections, then the runtime closes (flushing analytics counts), the log lines still
  // queued for stdout are written out (packages/core/src/logger.ts), and we exit. Connections still open after
  // 5 s are cut so that a keep-alive client cannot hold the flush back.
  const stop = () => {
    server.close(() => void closeProcessRuntime().finally(() => endLogs().finally(() => process.exit(0))));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/** How long start-up waits for Next's start-up hook (first-start seeding included) to publish the handlers. */
const START_UP_HOOK_TIMEOUT_MS = 120_000;

/** Resolves once the REST and operational handlers are published; rejects after `timeoutMs`. */
async function handlersPublished(timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the REST app was not loaded within ${timeoutMs / 1000} s of start`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([Promise.all([restFetchPublished(), opsFetchPublished()]), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
