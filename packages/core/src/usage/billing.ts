/**
 * Usage for billing (docs/contract.md section 7, "Usage for billing"): per consumer account and UTC calendar
 * month, its keys' requests by operation and outcome, summed from the UsageHour rows (the usage every screen
 * shows). A request counts in the month of its record's hour (when it was answered).
 */
import { AppError } from "@petstore/contracts";
import { Prisma } from "@petstore/db";
import type { CoreDeps } from "../deps.ts";
import { OPERATIONS, type Operation, OUTCOMES, type Outcome, reportedOutcome } from "./recorder.ts";

/**
 * How long after a month's end its figures are final (ms): the counts of its last requests are written within
 * the analytics flush interval (5 s by default); the margin covers a flush that had to be retried.
 */
export const BILLING_FINAL_AFTER_MS = 3_600_000;

/** One account's requests of one operation with one outcome in the month. */
export interface BillingRow {
  accountId: string;
  accountName: string;
  /** `YYYY-MM`. */
  month: string;
  operation: Operation;
  /** The reported outcome: `2xx`, `4xx`, `5xx`, `rate_limited` (a window or the quota refused it), `key_banned`. */
  outcome: Outcome;
  requests: number;
}

/** The export of one month. */
export interface BillingExport {
  month: string;
  /** The month's bounds, RFC 3339 UTC: [from, to). */
  from: string;
  to: string;
  /** True once the month ended more than `BILLING_FINAL_AFTER_MS` ago: its figures no longer change. */
  final: boolean;
  /** By account name, account id, operation (OPERATIONS order) and outcome (OUTCOMES order); no zero rows. */
  rows: BillingRow[];
}

/** [start, end) in Unix ms of the month `YYYY-MM`. */
export function monthBounds(month: string): [number, number] {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return [Date.UTC(y, m - 1, 1), Date.UTC(y, m, 1)];
}

/**
 * @returns `billing(month, accountId?)`: the month's export for one account, or every account without
 *   `accountId`. @throws AppError not_found for an unknown account; validation_failed for a month that has not
 *   begun.
 */
export function createBilling({ prisma, clock }: Pick<CoreDeps, "prisma" | "clock">) {
  return async function billing(month: string, accountId?: string): Promise<BillingExport> {
    const [from, to] = monthBounds(month);
    const now = clock().getTime();
    if (from > now)
      throw new AppError("validation_failed", `The month ${month} has not begun.`, [
        { path: "month", message: "must not be in the future" },
      ]);
    if (accountId && !(await prisma.account.findUnique({ where: { id: accountId }, select: { id: true } })))
      throw new AppError("not_found", `No account ${accountId}.`);
    const sums = await prisma.$queryRaw<
      { accountId: string; accountName: string; operation: string; outcome: string; requests: number }[]
    >`
      SELECT a."id"::text AS "accountId", a."name" AS "accountName", h."operation", h."outcome",
             sum(h."requests")::float8 AS "requests"
      FROM "UsageHour" h JOIN "ApiKey" k ON k."id" = h."apiKeyId" JOIN "Account" a ON a."id" = k."accountId"
      WHERE h."hour" >= ${new Date(from)} AND h."hour" < ${new Date(to)}
        ${accountId ? Prisma.sql`AND a."id" = ${accountId}::uuid` : Prisma.empty}
      GROUP BY 1, 2, 3, 4`;
    // Stored outcomes name the refusing window of a 429 (recorder.ts `StoredOutcome`): summed as reported.
    const byKey = new Map<string, BillingRow>();
    for (const s of sums) {
      const outcome = reportedOutcome(s.outcome);
      if (!outcome || !(OPERATIONS as readonly string[]).includes(s.operation)) continue;
      const id = `${s.accountId}|${s.operation}|${outcome}`;
      const row = byKey.get(id);
      if (row) row.requests += Number(s.requests);
      else
        byKey.set(id, {
          accountId: s.accountId,
          accountName: s.accountName,
          month,
          operation: s.operation as Operation,
          outcome,
          requests: Number(s.requests),
        });
    }
    const rows = [...byKey.values()].sort(
      (a, b) =>
        a.accountName.localeCompare(b.accountName) ||
        a.accountId.localeCompare(b.accountId) ||
        OPERATIONS.indexOf(a.operation) - OPERATIONS.indexOf(b.operation) ||
        OUTCOMES.indexOf(a.outcome) - OUTCOMES.indexOf(b.outcome),
    );
    return {
      month,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      final: now >= to + BILLING_FINAL_AFTER_MS,
      rows,
    };
  };
}

export type Billing = ReturnType<typeof createBilling>;
