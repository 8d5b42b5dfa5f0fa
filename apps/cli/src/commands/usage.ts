/**
 * `petstore usage export --month YYYY-MM [--account ID] --format csv|json`: usage for billing (docs/contract.md
 * section 7, "Usage for billing"), per account and UTC month, requests by operation and outcome. CSV as the
 * dashboard's download writes it (RFC 4180 through papaparse: every field quoted, CRLF, formulae escaped); JSON is
 * core's export (`month`, `from`, `to`, `final`, `rows`).
 */
import { BillingExportQuery } from "@petstore/contracts";
import type { BillingExport, Runtime } from "@petstore/core";
import Papa from "papaparse";
import type { Output } from "../io.ts";
import { parseOptions, parseValue, UsageError } from "../usage.ts";

const COLUMNS = ["account id", "account name", "month", "operation", "outcome", "requests"];
/** A field a spreadsheet would run as a formula starts with one of these (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** The CSV file of `exported`, without its final line break (printed as one line). */
export function billingCsv(exported: BillingExport): string {
  const data = exported.rows.map((r) => [
    r.accountId,
    r.accountName,
    r.month,
    r.operation,
    r.outcome,
    String(r.requests),
  ]);
  return Papa.unparse([COLUMNS, ...data], {
    quotes: true,
    escapeFormulae: FORMULA_START,
    newline: "\r\n",
    header: false,
  });
}

export async function usageCommand(rt: Runtime, args: string[], out: Output): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== "export")
    throw new UsageError(sub ? `Unknown usage command: ${sub}` : "usage needs a command: export");
  const { values } = parseOptions(rest, {
    month: { type: "string" },
    account: { type: "string" },
    format: { type: "string" },
    json: { type: "boolean" },
  });
  if (!values.month) throw new UsageError("usage export needs --month YYYY-MM");
  const format = values.format ?? (values.json ? "json" : "csv");
  if (format !== "csv" && format !== "json") throw new UsageError("Invalid --format: must be csv or json");
  const query = parseValue(
    BillingExportQuery,
    { month: values.month, ...(values.account ? { account: values.account } : {}) },
    "usage export options",
  );
  const exported = await rt.usage.billing(query.month, query.account);
  if (!exported.final)
    out.warn(`petstore: ${query.month} is not final yet: its figures grow until an hour after it ends.`);
  out.print(format === "json" ? JSON.stringify(exported) : billingCsv(exported));
}
