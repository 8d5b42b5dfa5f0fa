/**
 * `GET /api/usage/export?month=YYYY-MM[&account=<id>]` (docs/contract.md section 7, "Usage for billing"): an
 * account's requests in a UTC month by operation and outcome, as a CSV download (csv-download.ts). Admins name one
 * account, or none for every account; a member of an account gets its own (an `account` naming another is 404).
 */
import { AppError, BillingExportQuery } from "@petstore/contracts";
import type { BillingRow } from "@petstore/core";
import { type CsvTable, csvDownload } from "./csv-download";

export const USAGE_EXPORT = "/api/usage/export";

export const USAGE_CSV: CsvTable<BillingRow> = {
  columns: ["account id", "account name", "month", "operation", "outcome", "requests"],
  row: (r) => [r.accountId, r.accountName, r.month, r.operation, r.outcome, String(r.requests)],
};

/** The month's rows as one batch. */
async function* once(rows: Promise<{ rows: BillingRow[] }>) {
  yield (await rows).rows;
}

/** The answer to export request `req` on `rt`. */
export const usageExportResponse = csvDownload({
  filter: BillingExportQuery,
  table: USAGE_CSV,
  batches: (rt, { month, account }) => once(rt.usage.billing(month, account)),
  async *forMember(rt, accountId, { month, account }) {
    // A member's own account only; another's is answered as one that does not exist.
    if (account && account !== accountId) throw new AppError("not_found", `No account ${account}.`);
    yield* once(rt.forAccount(accountId).billing(month));
  },
  filename: ({ month, account }) => `usage-${month}${account ? `-${account.slice(0, 8)}` : ""}.csv`,
});
