/**
 * The process entry (`npm start`; docs/operations.md "Running it" and "Roles"). It owns the process: it opens
 * the one runtime (database, rate limiter, services) and builds the REST app, the operational endpoints and the
 * dashboard's JSON API on it with plain imports; in the roles that serve the dashboard it starts Next.js in a
 * supervised child process at a lower CPU priority (src/server/dashboard.ts), which never opens the runtime.
 * A plain node:http server in front routes each request (src/server/http/router.ts): `/v1` to the REST app, the
 * probes and /metrics to their handlers, /api/trpc and the audit download to the dashboard API, the rest through
 * a proxy to Next. On SIGTERM it drains, then stops the child, and stops cleanly (src/server/http/lifecycle.ts).
 * Usage: `node dist/server.js` (`npm start`: the production build, scripts/build-server.mjs) or
 * `tsx server.ts --dev` (Next in development mode).
 */
import fs from "node:fs";
import type { IncomingMessage } from "node:http";
import inspector from "node:inspector";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { type Config, ConfigError, getConfig, nodeOptionsInspect } from "@petstore/config";
import { openRuntime, type Runtime } from "@petstore/core";
import { createLogger, endLogs } from "@petstore/core/logger";
import { appDirectory } from "./src/server/app-directory.ts";
import { startUp } from "./src/server/bootstrap.ts";
import { createDashboardApiFetch } from "./src/server/dashboard-api.ts";
import { createConnections } from "./src/server/http/connections.ts";
import { writeRawErrorAnswer } from "./src/server/http/error-answer.ts";
import { fetchListener } from "./src/server/http/fetch-listener.ts";
import { checkPort, createHttpServer, ListenError, listen } from "./src/server/http/http-server.ts";
import { createLifecycle, type Lifecycle } from "./src/server/http/lifecycle.ts";
import { loadPageRoutes } from "./src/server/http/page-routes.ts";
import { observeRawAnswer } from "./src/server/http/request-log.ts";
import { createRouter } from "./src/server/http/router.ts";
import { answerUnavailable } from "./src/server/http/unavailable-page.ts";
import { createOpsFetch } from "./src/server/ops/handler.ts";
import { answerClientError, unservedMethod } from "./src/server/plain-responses.ts";
import { createRestFetch } from "./src/server/rest/handler.ts";
import { type StartOutput, startOutput } from "./src/server/start-output.ts";

/**
 * Opens the runtime on a database holding exactly this build's migrations: the embedded database (and PostgreSQL
 * with MIGRATE_ON_START=true) is migrated first; otherwise start-up stops with exit code 2 naming the fix.
 */
async function openProcessRuntime(
  config: Config,
  logger: Runtime["logger"],
  out: StartOutput,
): Promise<Runtime> {
  // Imported here only: the migration runner compiles Prisma's WebAssembly schema engine (tens of MB of RSS) when
  // it applies migrations, and stays out of the Next bundle.
  const { prepareDatabase } = await import("@petstore/core/migrate");
  return openRuntime({
    config,
    logger,
    prepare: (db) =>
      prepareDatabase(db, {
        migrateOnStart: config.migrateOnStart,
        log: (line) => out.line(line),
        // The production folder has the command beside the server (docs/operations.md "The production folder").
        command: fs.existsSync(path.join(import.meta.dirname, "cli.js"))
          ? "node cli.js"
          : "npm run petstore --",
      }),
  });
}

/**
 * Opens Node's inspector when the server is started with `--inspect[=[host:]port]` as its own argument (`npm start
 * -- --inspect`; docs/operations.md "Debugging"): NODE_OPTIONS=--inspect is read by npm's own Node first, which then
 * holds the port. Says so on stderr when NODE_OPTIONS asked for the inspector and this process could not open it.
 */
function openInspector(): void {
  const flag = process.argv.slice(2).find((arg) => /^--inspect(?:=|$)/.test(arg));
  if (flag) {
    const where = flag.slice("--inspect=".length);
    const [host, port] = where.includes(":") ? where.split(":") : ["127.0.0.1", where];
    inspector.open(Number(port) || 9229, host || "127.0.0.1");
    return;
  }
  if (nodeOptionsInspect() && !inspector.url())
    process.stderr.write(
      "NODE_OPTIONS=--inspect: the inspector's port is held by another Node process (npm's own under `npm run`); start the server with `npm start -- --inspect` (or `node --inspect dist/server.js`) instead.\n",
    );
}

async function main(): Promise<void> {
  const config = getConfig();
  openInspector();
  const dev = process.argv.includes("--dev");
  // Created before the runtime, so that the migration lines printed while it opens are JSON in production too.
  const logger = createLogger(config.logLevel, undefined, config.instanceId);
  const out = startOutput(config, logger);
  // Before the runtime, so that its first queries are traced too. Imported only when configured: without an OTLP
  // endpoint the process loads no tracing SDK (docs/operations.md "Tracing").
  const tracing = config.tracing
    ? await (await import("./src/server/tracing/sdk.ts")).startTracing(config.tracing)
    : undefined;
  const runtime = await openProcessRuntime(config, logger, out);

  let lifecycle: Lifecycle | undefined;
  const draining = () => lifecycle?.draining() ?? false;
  const api = fetchListener(
    createRestFetch(async () => runtime),
    config.trustProxy,
  );
  const ops = fetchListener(
    createOpsFetch({ config, runtime: async () => runtime, draining }),
    config.trustProxy,
  );
  const serveDashboard = config.serve !== "api";
  // A port another process holds stops the start here, in a moment, not after the dashboard process started.
  if (serveDashboard && config.listenFd === undefined) await checkPort(config.port, config.host);
  // Imported here only: an API-only instance never loads the proxy.
  const dashboard = serveDashboard
    ? await import("./src/server/dashboard.ts").then(({ startDashboard, recordsOf }) =>
        startDashboard({
          dev,
          port: config.port,
          nice: config.dashboardNice,
          sessions: runtime.sessions,
          records: recordsOf(runtime),
          unavailable: (req, res) => answerUnavailable(req, res, config, "dashboard"),
          log: (level, fields, message) => runtime.logger[level](fields, message),
          ...(out.human
            ? {}
            : { output: (line: string) => runtime.logger.info({ process: "dashboard" }, line) }),
        }),
      )
    : undefined;
  const dashboardApi = serveDashboard
    ? fetchListener(createDashboardApiFetch(runtime), config.trustProxy)
    : undefined;

  const connections = createConnections(
    createRouter({
      role: config.serve,
      runtime,
      api,
      ops,
      ...(dashboard && dashboardApi
        ? {
            dashboard: dashboard.listener,
            dashboardApi,
            pages: loadPageRoutes(appDirectory(import.meta.dirname)),
          }
        : {}),
    }),
  );
  const server = createHttpServer(config.http, connections.listener);
  // Refusals of what could not be read get their log line and count too (request-log.ts), unless a request on
  // the socket is being answered: its handler logs the status the socket was answered.
  server.on("clientError", (error: Error, socket: Socket) => {
    const answering = connections.answering(socket);
    answerClientError(error, socket);
    if (!answering) observeRawAnswer(runtime.logger, socket);
  });
  // CONNECT never names a path this app serves.
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    writeRawErrorAnswer(socket, unservedMethod(req.method ?? "CONNECT"));
    observeRawAnswer(runtime.logger, socket, req.method ?? "CONNECT");
  });
  // Next's hot reloading in development talks over a websocket under /_next/.
  if (dev && dashboard)
    server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
      if (req.url?.startsWith("/_next/")) dashboard.upgrade(req, socket, head);
      else socket.destroy();
    });
  lifecycle = createLifecycle({
    server,
    connections,
    drainMs: config.shutdown.drainMs,
    timeoutMs: config.shutdown.timeoutMs,
    releaseCut: () => runtime.idempotency.releaseInFlight(),
    // The child after the drain (proxied requests finished), before the runtime it asks for sessions.
    close: async () => {
      await dashboard?.stop();
      await runtime.close();
      // The spans of the last requests and of the close itself; bounded (2 s) when the collector does not answer.
      await tracing?.shutdown();
      await endLogs();
    },
    log: (event, fields) => runtime.logger.info({ event: `shutdown.${event}`, ...fields }, "shutdown"),
    keepsQueuedConnections: config.listenFd !== undefined,
  });
  await listen(server, config.port, config.host, config.listenFd);
  // After listen: a start that cannot take its port prints no banner, and creates no demo secret it never shows.
  await startUp(runtime, out);
  if (config.listenFd !== undefined) {
    const { address, port } = server.address() as AddressInfo;
    out.line(
      `Listening on ${address} port ${port}, the socket the supervisor passed (PETSTORE_SERVE=${config.serve})`,
      {
        port,
        host: address,
        listenFd: config.listenFd,
        serve: config.serve,
      },
    );
    return;
  }
  const where = config.host === undefined ? "" : ` of ${config.host}`;
  out.line(`Listening on port ${config.port}${where} (PETSTORE_SERVE=${config.serve})`, {
    port: config.port,
    ...(config.host === undefined ? {} : { host: config.host }),
    serve: config.serve,
  });
}

main().catch((error: unknown) => {
  // Errors whose message is the whole story (the migration check's unreachable database is checked by name: its
  // module is loaded on demand).
  const known =
    error instanceof ConfigError ||
    error instanceof ListenError ||
    (error instanceof Error && error.name === "DatabaseUnreachableError");
  process.stderr.write(`${known ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
