/**
 * Start-up of the web process (docs/operations.md, "Running it"): open the runtime, run core's first-start
 * setup (on a fresh embedded database outside production: seed, demo API key, demo admin) and print the
 * URL and the demo secrets once; then start the housekeeping schedule (core housekeeping.ts). Runs from
 * Next's instrumentation hook.
 */
import { isDevelopmentBuild } from "@petstore/config";
import type { Runtime } from "@petstore/core";
import { isCustomServer } from "./client-ip.ts";
import { getRuntime } from "./runtime.ts";

/** The banner lines of what the first start created (nothing on later starts). */
async function firstStart(rt: Runtime): Promise<string[]> {
  const { demoKey, demoAdmin } = await rt.firstStart();
  const lines: string[] = [];
  if (demoKey) {
    lines.push(`Demo API key (free plan; shown once): ${demoKey}`);
    lines.push(`  curl -H "Authorization: Bearer ${demoKey}" ${rt.config.publicBaseUrl}/v1/pets`);
  }
  if (demoAdmin) lines.push(`Demo admin (shown once): ${demoAdmin.email} / ${demoAdmin.password}`);
  return lines;
}

/** Opens the runtime and prints the start banner; a failure is logged and ends the process. */
export async function bootstrap(): Promise<void> {
  try {
    const rt = await getRuntime();
    // docs/contract.md section 3: per-IP limits need the peer address, which only server.ts (or, with
    // TRUST_PROXY, the proxy's X-Forwarded-For) provides; `next start` alone would put everyone in one bucket.
    if (!isCustomServer() && !rt.config.trustProxy && !isDevelopmentBuild()) {
      throw new Error(
        "run the app with its own server (`npm start`, server.ts), or set TRUST_PROXY behind a proxy that sets X-Forwarded-For: under plain `next start` the client address is unknown",
      );
    }
    const lines = await firstStart(rt);
    // docs/contract.md section 5: stale rows are purged on a schedule, one instance at a time.
    rt.housekeeping.schedule();
    const url = rt.config.publicBaseUrl;
    process.stdout.write(
      [
        "",
        `Pet Store is serving on ${url}`,
        `  API: ${url}/v1   reference: ${url}/docs   dashboard: ${url}/admin`,
        `  database: ${rt.config.database.kind === "pglite" ? `embedded PGlite in ${rt.config.database.dir}` : "PostgreSQL"}`,
        ...lines.map((l) => `  ${l}`),
        "",
      ].join("\n"),
    );
  } catch (error) {
    process.stderr.write(
      `Pet Store could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
}
