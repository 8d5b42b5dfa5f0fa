/**
 * Sign-in throttling (docs/contract.md section 4: "sign-in throttled per account and IP"), decided before a
 * password is checked so that no batch or burst of parallel attempts can outrun it.
 *
 * Three buckets apply to every attempt (rows of SignInThrottle):
 * - per account and client (`account-client:<email> <ip>`): 5 failures, then back-off;
 * - per client (`client:<ip>`): 20 failures over any accounts, then back-off;
 * - per account over all clients (`account:<email>`): 100 failures, then back-off. Far above the others, so
 *   one client cannot lock an account for everyone; when it trips, the audit log gets an alert.
 * Back-off: once a bucket holds `threshold` failures it is blocked for `baseSeconds * 2^(failures -
 * threshold)`, at most `maxSeconds`; each further failure after a block doubles the next one. A bucket is
 * forgotten one hour after its last attempt or block end, whichever is later.
 *
 * `admit` runs in one transaction that locks the three rows (in a fixed order, so concurrent attempts
 * queue rather than deadlock) and counts the attempt as a failure up front; a successful sign-in gives the
 * count back (`succeeded`). A refused attempt counts nothing. The first refusal of each block is written to
 * the audit log. Unknown emails are counted like known ones, so throttling never tells whether an account
 * exists.
 */
import { Prisma, type PrismaClient } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import { type CoreDeps, SYSTEM_ACTOR } from "../deps.ts";

export interface BucketRule {
  /** Failures admitted before the bucket blocks. */
  threshold: number;
  /** First block, seconds; doubles with each further failure. */
  baseSeconds: number;
  /** Longest block, seconds. */
  maxSeconds: number;
}

export type BucketScope = "accountClient" | "client" | "account";

export const SIGN_IN_RULES: Record<BucketScope, BucketRule> = {
  accountClient: { threshold: 5, baseSeconds: 60, maxSeconds: 3600 },
  client: { threshold: 20, baseSeconds: 60, maxSeconds: 3600 },
  account: { threshold: 100, baseSeconds: 900, maxSeconds: 3600 },
};

/** A bucket with no attempt and no block for this long starts again from zero. */
export const SIGN_IN_FORGET_MS = 3600_000;

const PURGE_EVERY_MS = 60_000;

/** Whether an attempt may check its password; when not, whole seconds (>= 1) until it may. */
export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

interface Row {
  bucket: string;
  failures: number;
  lastAttemptAt: Date;
  blockedUntil: Date | null;
  auditedBlock: Date | null;
}

/** Block length after `failures` failures under `rule`, ms (0 while under the threshold). */
export function blockMs(rule: BucketRule, failures: number): number {
  if (failures < rule.threshold) return 0;
  const exponent = Math.min(failures - rule.threshold, 30);
  return Math.min(rule.maxSeconds, rule.baseSeconds * 2 ** exponent) * 1000;
}

/**
 * Deletes the sign-in throttle rows that count for nothing any more at `now`: no attempt and no block for
 * `SIGN_IN_FORGET_MS` (old sign-in failures; docs/contract.md section 5 "Housekeeping").
 * @returns how many rows were deleted.
 */
export async function purgeForgottenSignIns(prisma: PrismaClient, now: Date): Promise<number> {
  const before = new Date(now.getTime() - SIGN_IN_FORGET_MS);
  const { count } = await prisma.signInThrottle.deleteMany({
    where: { lastAttemptAt: { lt: before }, OR: [{ blockedUntil: null }, { blockedUntil: { lt: before } }] },
  });
  return count;
}

export function createSignInThrottle({
  prisma,
  clock,
  logger,
}: Pick<CoreDeps, "prisma" | "clock" | "logger">) {
  let lastPurge = 0;

  const bucketsOf = (email: string, ip: string): Record<BucketScope, string> => ({
    accountClient: `account-client:${email} ${ip}`,
    client: `client:${ip}`,
    account: `account:${email}`,
  });

  /** The row as it counts now: forgotten rows start from zero. */
  const current = (row: Row, now: number): Row => {
    const quietSince = Math.max(row.lastAttemptAt.getTime(), row.blockedUntil?.getTime() ?? 0);
    return now - quietSince > SIGN_IN_FORGET_MS ? { ...row, failures: 0, blockedUntil: null } : row;
  };

  /** Deletes forgotten rows, at most once a minute per process; failures are only logged. */
  function purge(now: Date) {
    if (now.getTime() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = now.getTime();
    purgeForgottenSignIns(prisma, now).catch((err: unknown) =>
      logger.warn({ err }, "could not purge sign-in throttle rows"),
    );
  }

  return {
    /**
     * Decides whether a sign-in for `email` from `ip` may check its password, and if so counts it as a
     * failure already (atomically with the decision). Refusals write the audit log once per block.
     */
    async admit(email: string, ip: string): Promise<Admission> {
      const now = clock();
      const at = now.getTime();
      const buckets = bucketsOf(email, ip);
      const scopeOf = new Map(Object.entries(buckets).map(([scope, key]) => [key, scope as BucketScope]));
      const admission = await prisma.$transaction(
        async (tx) => {
          await tx.signInThrottle.createMany({
            data: Object.values(buckets).map((bucket) => ({ bucket, lastAttemptAt: now })),
            skipDuplicates: true,
          });
          const locked = await tx.$queryRaw<Row[]>`
            SELECT "bucket", "failures", "lastAttemptAt", "blockedUntil", "auditedBlock"
            FROM "SignInThrottle" WHERE "bucket" IN (${Prisma.join(Object.values(buckets))})
            ORDER BY "bucket" FOR UPDATE`;
          const rows = locked.map((row) => current(row, at));
          const blocked = rows.filter((row) => row.blockedUntil && row.blockedUntil.getTime() > at);
          if (blocked.length > 0) {
            for (const row of blocked) {
              if (row.auditedBlock?.getTime() === row.blockedUntil?.getTime()) continue;
              const scope = scopeOf.get(row.bucket) ?? "client";
              await tx.signInThrottle.update({
                where: { bucket: row.bucket },
                data: { auditedBlock: row.blockedUntil },
              });
              await writeAudit(tx, {
                actor: SYSTEM_ACTOR,
                action: scope === "account" ? "session.accountThrottled" : "session.throttled",
                entityType: "session",
                entityId: scope === "client" ? ip : email,
                after: { scope, email, ip, failures: row.failures, blockedUntil: row.blockedUntil },
              });
            }
            const until = Math.max(...blocked.map((row) => row.blockedUntil?.getTime() ?? 0));
            return {
              admitted: false,
              retryAfterSeconds: Math.max(1, Math.ceil((until - at) / 1000)),
            } as const;
          }
          for (const row of rows) {
            const failures = row.failures + 1;
            const block = blockMs(SIGN_IN_RULES[scopeOf.get(row.bucket) ?? "client"], failures);
            await tx.signInThrottle.update({
              where: { bucket: row.bucket },
              data: { failures, lastAttemptAt: now, blockedUntil: block > 0 ? new Date(at + block) : null },
            });
          }
          return { admitted: true } as const;
        },
        { maxWait: 10_000, timeout: 10_000 },
      );
      purge(now);
      return admission;
    },

    /**
     * Gives back the failure `admit` counted for a sign-in that succeeded: the account-and-client bucket is
     * cleared, the client and account buckets lose one failure (and their block, when back under the
     * threshold).
     */
    async succeeded(email: string, ip: string): Promise<void> {
      const buckets = bucketsOf(email, ip);
      await prisma.$transaction([
        prisma.signInThrottle.deleteMany({ where: { bucket: buckets.accountClient } }),
        ...(["client", "account"] as const).map(
          (scope) => prisma.$executeRaw`
            UPDATE "SignInThrottle" SET "failures" = GREATEST("failures" - 1, 0),
              "blockedUntil" = CASE WHEN "failures" - 1 < ${SIGN_IN_RULES[scope].threshold} THEN NULL
                ELSE "blockedUntil" END
            WHERE "bucket" = ${buckets[scope]}`,
        ),
      ]);
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
