/**
 * Housekeeping (docs/contract.md section 5; docs/operations.md "Housekeeping"): deletes what has outlived its
 * purpose, so no table grows forever: expired idempotency records (24 h), expired dashboard sessions (and the
 * reasons kept for sessions ended on a person's behalf, once those would have expired), sign-in
 * throttle rows that count for nothing any more (old sign-in failures), lapsed password reset links, and
 * (registered by the runtime)
 * hourly analytics rows older than ANALYTICS_RETENTION_DAYS and webhook messages older than 30 days with their
 * deliveries and attempts. The server runs it on a schedule (`schedule`, every 10 minutes), `petstore db purge` on demand.
 *
 * On PostgreSQL one instance purges at a time: `run` takes the transaction-scoped advisory lock
 * `pg_try_advisory_xact_lock` (the pooled form of `pg_try_advisory_lock`: it is released with its
 * transaction, whichever pooled connection runs it) and skips the round when another instance holds it. On
 * the embedded PGlite database (one process) it just runs.
 *
 * Other modules add their own purges with `register(name, task)`.
 */
import type { PrismaClient } from "@petstore/db";
import type { CoreDeps } from "./deps.ts";
import { isDatabaseUnavailable } from "./error-translator.ts";
import { purgeForgottenSignIns } from "./sessions/throttle.ts";

/** How often the server purges. */
export const HOUSEKEEPING_INTERVAL_MS = 10 * 60_000;

/** One purge: deletes what is stale at `now` and returns how many rows it deleted. */
export type HousekeepingTask = (prisma: PrismaClient, now: Date) => Promise<number>;

/** Rows deleted by each task of one round, by task name; `skipped` when another instance was purging. */
export type HousekeepingReport = { skipped: false; deleted: Record<string, number> } | { skipped: true };

/** The purges every deployment runs, by name (the report's keys). */
export const STANDARD_TASKS: Record<string, HousekeepingTask> = {
  idempotencyRecords: async (prisma, now) =>
    (await prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } })).count,
  sessions: async (prisma, now) =>
    (await prisma.session.deleteMany({ where: { expiresAt: { lte: now } } })).count,
  endedSessions: async (prisma, now) =>
    (await prisma.endedSession.deleteMany({ where: { expiresAt: { lte: now } } })).count,
  signInThrottles: purgeForgottenSignIns,
  /** Password reset links past their hour (used or not). */
  passwordResets: async (prisma, now) =>
    (await prisma.passwordReset.deleteMany({ where: { expiresAt: { lte: now } } })).count,
};

export function createHousekeeping({
  prisma,
  config,
  clock,
  logger,
  dependencies,
}: Pick<CoreDeps, "prisma" | "config" | "clock" | "logger" | "dependencies">) {
  const tasks = new Map(Object.entries(STANDARD_TASKS));

  async function runTasks(): Promise<Record<string, number>> {
    const now = clock();
    const deleted: Record<string, number> = {};
    for (const [name, task] of tasks) deleted[name] = await task(prisma, now);
    return deleted;
  }

  const housekeeping = {
    /** Adds (or replaces) a named purge that every later round runs. */
    register(name: string, task: HousekeepingTask): void {
      tasks.set(name, task);
    },

    /**
     * One round of every purge, unless another instance is running one (PostgreSQL advisory lock).
     * @returns rows deleted per task, or `{skipped: true}`.
     * @throws what a purge throws (a database outage, say); nothing is half-reported.
     */
    async run(): Promise<HousekeepingReport> {
      if (config.database.kind === "pglite") return { skipped: false, deleted: await runTasks() };
      return prisma.$transaction(
        async (tx) => {
          const [row] = await tx.$queryRaw<{ locked: boolean }[]>`
            SELECT pg_try_advisory_xact_lock(hashtext('petstore:housekeeping')) AS "locked"`;
          if (!row?.locked) return { skipped: true } as const;
          return { skipped: false, deleted: await runTasks() } as const;
        },
        { maxWait: 10_000, timeout: HOUSEKEEPING_INTERVAL_MS },
      );
    },

    /**
     * Runs a round now and then every `everyMs` (default 10 minutes) until the returned function (or the
     * runtime's close) stops it. Failures are logged and retried at the next round; timers never keep the
     * process alive.
     */
    schedule(everyMs = HOUSEKEEPING_INTERVAL_MS): () => void {
      let running: Promise<unknown> = Promise.resolve();
      const round = () => {
        running = housekeeping.run().then(
          (report) => {
            if (!report.skipped) logger.info({ deleted: report.deleted }, "housekeeping");
          },
          (err: unknown) => {
            // An unreachable database is one line per outage (dependency-status.ts), not one per round.
            if (dependencies && isDatabaseUnavailable(err)) dependencies.down("database", err);
            else logger.warn({ err }, "housekeeping failed; retrying at the next round");
          },
        );
      };
      round();
      const timer = setInterval(round, everyMs);
      timer.unref();
      stops.add(stop);
      function stop() {
        clearInterval(timer);
        stops.delete(stop);
        return running;
      }
      return () => void stop();
    },

    /** Stops every schedule and waits for a round in progress (the runtime calls it on close). */
    async stop(): Promise<void> {
      await Promise.all([...stops].map((stop) => stop()));
    },
  };
  const stops = new Set<() => Promise<unknown>>();
  return housekeeping;
}

export type Housekeeping = ReturnType<typeof createHousekeeping>;
