/**
 * `petstore db purge [--json]` (docs/contract.md section 5 "Housekeeping"): one round of core's housekeeping
 * now (expired idempotency records and sessions, old sign-in failures, usage older than 90 days), the same
 * round the server runs every 10 minutes. With `--json` it prints `{"skipped":false,"deleted":{...}}`.
 */
import type { Runtime } from "@petstore/core";
import type { Output } from "../io.ts";
import { parseOptions } from "../usage.ts";

export async function purgeCommand(rt: Runtime, args: string[], out: Output): Promise<void> {
  const { values } = parseOptions(args, { json: { type: "boolean" } });
  const report = await rt.housekeeping.run();
  if (values.json) return out.print(JSON.stringify(report));
  if (report.skipped) return out.print("Another instance is purging right now; nothing was done.");
  const counts = Object.entries(report.deleted).map(([name, count]) => `${name} ${count}`);
  out.print(`Purged: ${counts.join(", ")}`);
}
