/**
 * Animals per status for the overview (docs/contract.md section 4 "Counts at scale"), without counting a large
 * table on every page load: each status is counted exactly up to COUNT_CAP (a walk of at most COUNT_CAP + 1
 * entries of the `(status, id)` index); a status with more is estimated from the statistics PostgreSQL keeps
 * for its planner (the table's row estimate, scaled to its current size, times the status's frequency; kept
 * current by autovacuum's ANALYZE), and marked `exact: false`. Where no statistics exist yet (a table never
 * analysed, the embedded database), that status is counted exactly.
 */
import { COUNT_CAP } from "@petstore/contracts";
import type { PrismaClient } from "@petstore/db";

export type StatusName = "available" | "pending" | "sold" | "none";

export const STATUS_NAMES: readonly StatusName[] = ["available", "pending", "sold", "none"];

/** Animals of one status: exact when `exact`, else an estimate above COUNT_CAP. */
export interface StatusCount {
  status: StatusName;
  count: number;
  exact: boolean;
}

const condition = (status: StatusName) =>
  status === "none" ? `"status" IS NULL` : `"status" = '${status}'::"PetStatus"`;

interface PlannerStatistics {
  rows: number | null;
  nullFraction: number | null;
  values: string | null;
  frequencies: number[] | null;
}

/** The planner's row estimate of Pet (scaled to its current size) and the frequencies of its statuses. */
async function plannerStatistics(prisma: PrismaClient): Promise<PlannerStatistics | undefined> {
  const [row] = await prisma.$queryRaw<PlannerStatistics[]>`
    SELECT CASE WHEN c.reltuples < 0 THEN NULL
                WHEN c.relpages = 0 THEN c.reltuples::float8
                ELSE (c.reltuples / c.relpages * (pg_relation_size(c.oid) / current_setting('block_size')::int))::float8
           END AS rows,
           s.null_frac::float8 AS "nullFraction", s.most_common_vals::text AS values,
           s.most_common_freqs::float8[] AS frequencies
    FROM pg_class AS c
    LEFT JOIN pg_stats AS s ON s.schemaname = current_schema() AND s.tablename = 'Pet' AND s.attname = 'status'
    WHERE c.oid = '"Pet"'::regclass`;
  return row;
}

/** The estimate for `status`, or undefined when the statistics say nothing about it. */
function estimate(stats: PlannerStatistics | undefined, status: StatusName): number | undefined {
  if (!stats || stats.rows === null) return undefined;
  if (status === "none") return stats.nullFraction === null ? undefined : stats.nullFraction * stats.rows;
  const values = stats.values?.replace(/^\{|\}$/g, "").split(",") ?? [];
  const frequency = stats.frequencies?.[values.indexOf(status)];
  return frequency === undefined ? undefined : frequency * stats.rows;
}

/** Animals per status, in STATUS_NAMES order (see the module comment). */
export async function countByStatus(prisma: PrismaClient): Promise<StatusCount[]> {
  const [capped] = await prisma.$queryRawUnsafe<Record<StatusName, number>[]>(
    `SELECT ${STATUS_NAMES.map(
      (s) =>
        `(SELECT count(*) FROM (SELECT 1 FROM "Pet" WHERE ${condition(s)} LIMIT ${COUNT_CAP + 1}) AS m)::float8 AS "${s}"`,
    ).join(", ")}`,
  );
  const counts = STATUS_NAMES.map((status) => ({ status, count: capped?.[status] ?? 0, exact: true }));
  if (counts.every((c) => c.count <= COUNT_CAP)) return counts;
  const stats = await plannerStatistics(prisma);
  return Promise.all(
    counts.map(async (c) => {
      if (c.count <= COUNT_CAP) return c;
      const guess = estimate(stats, c.status);
      if (guess !== undefined)
        return { ...c, count: Math.max(COUNT_CAP + 1, Math.round(guess)), exact: false };
      const [all] = await prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::float8 AS n FROM "Pet" WHERE ${condition(c.status)}`,
      );
      return { ...c, count: all?.n ?? 0 };
    }),
  );
}
