/**
 * First-start work of `npm start` (PRODUCT.md section 5): open the runtime (which migrates the embedded
 * database), seed a fresh embedded database, and — outside production — issue a demo API key and a demo
 * admin, printing them once together with the URL; then starts the housekeeping schedule (core
 * housekeeping.ts). Runs from Next's instrumentation hook.
 */
import { isDevelopmentBuild } from "@petstore/config";
import { ensureDemoAdmin, type Runtime } from "@petstore/core";
import { seedDatabase } from "@petstore/db";
import { isCustomServer } from "./client-ip.ts";
import { getRuntime } from "./runtime.ts";

async function firstStart(rt: Runtime): Promise<string[]> {
  const lines: string[] = [];
  if (rt.config.database.kind !== "pglite" || rt.config.environment === "production") return lines;
  if ((await rt.db.prisma.apiKey.count()) > 0) return lines;
  await seedDatabase(rt.db.prisma);
  const key = await rt.apiKeys.create({ name: "demo", plan: "free" }, "system:bootstrap");
  lines.push(`Demo API key (free plan; shown once): ${key.key}`);
  lines.push(`  curl -H "Authorization: Bearer ${key.key}" ${rt.config.publicBaseUrl}/v1/pets`);
  const admin = await ensureDemoAdmin(rt);
  if (admin) lines.push(`Demo admin (shown once): ${admin.email} / ${admin.password}`);
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
