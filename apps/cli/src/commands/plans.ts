/**
 * `petstore plans list`: the rate limits and monthly quota of each plan (docs/contract.md section 3) and its key
 * cap (section 7).
 */
import type { Runtime } from "@petstore/core";
import type { Output } from "../io.ts";
import { parseOptions, UsageError } from "../usage.ts";

export async function plansCommand(rt: Runtime, args: string[], out: Output): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== "list")
    throw new UsageError(sub ? `Unknown plans command: ${sub}` : "plans needs a command: list");
  const { values } = parseOptions(rest, { json: { type: "boolean" } });
  const plans = await rt.plans.list();
  if (values.json) return out.print(JSON.stringify(plans));
  out.table(
    plans.map((p) => ({
      plan: p.name,
      "per minute": p.perMinute ?? "custom per key",
      "per day": p.perDay ?? "custom per key",
      "per month": p.perMonth ?? "no quota",
      "keys per account": p.maxKeys ?? "no cap",
    })),
  );
}
