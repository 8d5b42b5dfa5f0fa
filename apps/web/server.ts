/**
 * The process entry (`npm start`; docs/operations.md "Running it" and "Roles"). It owns the process: it opens
 * the one runtime (database, rate limiter, services), builds the REST app and the operational endpoints with
 * plain imports, and, in the roles that serve the dashboard, starts Next.js and hands it the runtime
 * (src/server/runtime.ts). A plain node:http server in front routes each request (src/server/http/router.ts):
 * `/v1` to the REST app without Next's router, the probes and /metrics to their handlers, the rest to Next.
 * On SIGTERM it drains and stops cleanly (src/server/http/lifecycle.ts).
 * Usage: `node dist/server.js` (`npm start`: the production build, scripts/build-server.mjs) or
 * `tsx server.ts --dev` (Next in development mode).
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { type Config, ConfigError, getConfig } from "@petstore/config";
import { openRuntime, type Runtime } from "@petstore/core";
import { endLogs } from "@petstore/core/logger";
import { startUp } from "./src/server/bootstrap.ts";
import { appDirectory, startDashboard, yieldCpuToApi } from "./src/server/dashboard.ts";
import { createConnections } from "./src/server/http/connections.ts";
import { writeRawErrorAnswer } from "./src/server/http/error-answer.ts";
import { fetchListener } from "./src/server/http/fetch-listener.ts";
import { createHttpServer, ListenError, listen } from "./src/server/http/http-server.ts";
import { createLifecycle, type Lifecycle } from "./src/server/http/lifecycle.ts";
import { createRouter } from "./src/server/http/router.ts";
import { createOpsFetch } from "./src/server/ops/handler.ts";
import { answerClientError, unservedMethod } from "./src/server/plain-responses.ts";
import { createRestFetch } from "./src/server/rest/handler.ts";
import { handOverRuntime } from "./src/server/runtime.ts";

/**
 * Opens the runtime on a database holding exactly this build's migrations: the embedded database (and PostgreSQL
 * with MIGRATE_ON_START=true) is migrated first; otherwise start-up stops with exit code 2 naming the fix.
 */
async function openProcessRuntime(config: Config): Promise<Runtime> {
  // Imported here only: the migration runner compiles Prisma's WebAssembly schema engine (tens of MB of RSS) when
  // it applies migrations, and stays out of the Next bundle.
  const { prepareDatabase } = await import("@petstore/core/migrate");
  const log = (line: string) => process.stdout.write(`${line}\n`);
  return openRuntime({
    config,
    prepare: (db) => prepareDatabase(db, { migrateOnStart: config.migrateOnStart, log }),
  });
}

async function main(): Promise<void> {
  const config = getConfig();
  const dev = process.argv.includes("--dev");
  const runtime = await openProcessRuntime(config);
  handOverRuntime(runtime);

  let lifecycle: Lifecycle | undefined;
  const draining = () => lifecycle?.draining() ?? false;
  // Made before Next starts: the adapter installs its Request/Response globals (fetch-listener.ts), and Next must
  // see the same globals from its first request on.
  const api = fetchListener(
    createRestFetch(async () => runtime),
    config.trustProxy,
  );
  const ops = fetchListener(
    createOpsFetch({ config, runtime: async () => runtime, draining }),
    config.trustProxy,
  );
  const dashboard =
    config.serve === "api"
      ? undefined
      : await startDashboard({ dir: appDirectory(import.meta.dirname), dev, port: config.port });
  if (config.serve === "dashboard") {
    const refused = yieldCpuToApi(config.dashboardNice);
    if (refused)
      runtime.logger.warn({ nice: config.dashboardNice, error: refused }, "could not lower CPU priority");
  }

  const connections = createConnections(
    createRouter({ role: config.serve, runtime, api, ops, ...(dashboard ? { dashboard } : {}) }),
  );
  const server = createHttpServer(config.http, connections.listener);
  server.on("clientError", answerClientError);
  // CONNECT never names a path this app serves.
  server.on("connect", (req: IncomingMessage, socket: Socket) =>
    writeRawErrorAnswer(socket, unservedMethod(req.method ?? "CONNECT")),
  );
  lifecycle = createLifecycle({
    server,
    connections,
    drainMs: config.shutdown.drainMs,
    timeoutMs: config.shutdown.timeoutMs,
    releaseCut: () => runtime.idempotency.releaseInFlight(),
    close: async () => {
      await runtime.close();
      await endLogs();
    },
    log: (event, fields) => runtime.logger.info({ event: `shutdown.${event}`, ...fields }, "shutdown"),
  });
  await listen(server, config.port);
  // After listen: a start that cannot take its port prints no banner, and creates no demo secret it never shows.
  await startUp(runtime);
  process.stdout.write(`Listening on port ${config.port} (PETSTORE_SERVE=${config.serve})\n`);
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof ListenError;
  process.stderr.write(`${known ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
