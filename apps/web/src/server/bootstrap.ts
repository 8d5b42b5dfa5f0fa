/**
 * Start-up duties of a process that serves (docs/operations.md "Running it"): core's first-start setup (on a
 * fresh embedded database outside production: seed, demo API key, demo admin), recording the deployment's public
 * origin for the `petstore` command (core public-origin.ts), the start banner with the demo secrets printed once,
 * the housekeeping schedule (core housekeeping.ts), the sweep of lapsed order holds (core orders/sweep.ts) and
 * webhook delivery (core webhooks/dispatcher.ts). The banner is text, or JSON log lines in production.
 */
import type { Runtime } from "@petstore/core";
import type { StartOutput } from "./start-output.ts";

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

/** First start, banner (to `out`), housekeeping and the sweep for `rt`. @throws what the first-start setup throws. */
export async function startUp(rt: Runtime, out: StartOutput): Promise<void> {
  const lines = await firstStart(rt);
  // The `petstore` command builds invitation links on it when its own environment has no PUBLIC_BASE_URL.
  await rt.recordPublicOrigin();
  // docs/contract.md section 5: stale rows are purged on a schedule, one instance at a time.
  rt.housekeeping.schedule();
  // docs/contract.md section 1, "Holds that lapse": every instance sweeps once a second, and once now, so that
  // what lapsed while no instance ran is expired before this one serves (a failing sweep is logged, not thrown).
  await rt.orderSweeper.start();
  // docs/contract.md section 6: every instance delivers webhooks (runtime.close() stops it).
  rt.webhooks.start();
  const url = rt.config.publicBaseUrl;
  const serves = {
    all: `  API: ${url}/v1   reference: ${url}/docs   dashboard: ${url}/admin`,
    api: `  API: ${url}/v1 (this instance serves the API only)`,
    dashboard: `  reference: ${url}/docs   dashboard: ${url}/admin (this instance serves the dashboard only)`,
  }[rt.config.serve];
  const database =
    rt.config.database.kind === "pglite" ? `embedded PGlite in ${rt.config.database.dir}` : "PostgreSQL";
  if (!out.human) {
    out.line(`Pet Store is serving on ${url}`, { url, serve: rt.config.serve, database });
    for (const line of lines) out.line(line.trim());
    return;
  }
  out.line(
    [
      "",
      `Pet Store is serving on ${url}`,
      serves,
      `  database: ${database}`,
      ...lines.map((l) => `  ${l}`),
    ].join("\n"),
  );
}
