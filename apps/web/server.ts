/**
 * Production (and dev) HTTP server: Next.js behind a plain node:http server (Next's documented custom
 * server), so the app learns the real client address (`src/server/client-ip.ts`) for per-IP rate limiting.
 * It also applies pending migrations to the embedded PGlite database before Next opens it.
 * Usage: `tsx server.ts` (production build) or `tsx server.ts --dev`. Port from PORT (packages/config).
 */
import http from "node:http";
import { ConfigError, getConfig } from "@petstore/config";
import { deployMigrations } from "@petstore/db/migrate";
import next from "next";
import { stampClientIp } from "./src/server/client-ip.ts";

async function main(): Promise<void> {
  const config = getConfig();
  const dev = process.argv.includes("--dev");
  if (config.database.kind === "pglite") {
    // The embedded database is migrated before Next opens it (PGlite allows one opener at a time).
    const { applied } = await deployMigrations(config.database);
    if (applied.length)
      process.stdout.write(`Applied migrations to the embedded database: ${applied.join(", ")}\n`);
  }
  const app = next({ dev, dir: import.meta.dirname, port: config.port, hostname: "0.0.0.0" });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = http.createServer((req, res) => {
    stampClientIp(req, config.trustProxy);
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`request failed: ${String(error)}\n`);
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json; charset=utf-8" });
      res.end(
        JSON.stringify({ code: "internal_error", message: "An unexpected error occurred.", status: 500 }),
      );
    });
  });
  server.listen(config.port, () => process.stdout.write(`Listening on port ${config.port}\n`));
  const stop = () => server.close(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
