/**
 * `petstore db seed --scale [--json]` (docs/operations.md, "Measuring the dashboard at scale"): fills a new,
 * empty PostgreSQL database with the scale data set (core's `seedScale`) and prints what it added and how long
 * it took; `--json` prints `{"animals","apiKeys","usageRows","users","auditEntries","bans","seconds"}`. Plain
 * `db seed` (no option) is handled in cli.ts.
 */
import type { Runtime } from "@petstore/core";
import type { Output } from "../io.ts";
import { parseOptions, UsageError } from "../usage.ts";

export async function seedCommand(
  withRuntime: <T>(fn: (rt: Runtime) => Promise<T>) => Promise<T>,
  args: string[],
  out: Output,
): Promise<void> {
  const { values } = parseOptions(args, { scale: { type: "boolean" }, json: { type: "boolean" } });
  if (!values.scale) throw new UsageError("db seed takes no options but --scale (and --json with it).");
  const result = await withRuntime((rt) => rt.seedScale());
  if (values.json) return out.print(JSON.stringify(result));
  const n = (v: number) => v.toLocaleString("en-US");
  out.print(
    `Seeded the scale data set in ${result.seconds} s: ${n(result.animals)} animals, ${n(result.apiKeys)} API keys, ` +
      `${n(result.usageRows)} hourly usage rows, ${n(result.users)} users, ${n(result.auditEntries)} audit entries ` +
      `and ${n(result.bans)} bans behind the refused requests.`,
  );
}
