/**
 * Sign-in throttling: the buckets and their limits are docs/contract.md section 4, "Sign-in throttling"; how an
 * attempt is counted, and why the per-account count drains, docs/architecture.md "Sign-in throttling".
 *
 * Buckets are rows of SignInThrottle keyed by scope (`signInBuckets`; the network from client-network.ts), with the
 * limits of SIGN_IN_RULES. An attempt is refused on a plain read when one of its buckets is blocked, writing only
 * the `refusals` counter of the blocking row with the latest end (and the audit log on a block's first refusal).
 * Otherwise one transaction creates its missing rows, locks them in a fixed order (so concurrent attempts queue
 * rather than deadlock), decides again and counts a failure up front, which `succeeded` gives back; a refusal
 * decided under the lock rolls the transaction back. Unknown emails count like known ones, so throttling never
 * tells whether an account exists.
 *
 * A block this instance has read is remembered for up to `KNOWN_BLOCK_MS` (`refusedFromMemory`): while it lasts,
 * an attempt without a device cookie that one of its buckets blocks is refused without the database or a password
 * slot, so a blocked flood costs a map look-up per attempt. The first refusal of a block is always read and
 * written in the database (its audit entry); a block lifted elsewhere (a success on another instance) is seen
 * within `KNOWN_BLOCK_MS`, one lifted here at once.
 */
import { Prisma, type PrismaClient } from "@petstore/db";
import { LRUCache } from "lru-cache";
import { writeAudit } from "../audit.ts";
import { type ClientPrefixes, clientNetwork, DEFAULT_CLIENT_PREFIXES } from "../client-network.ts";
import { type CoreDeps, SYSTEM_ACTOR } from "../deps.ts";

export interface BucketRule {
  /** Failures admitted before the bucket blocks. */
  threshold: number;
  /** First block, seconds; doubles with each further failure. */
  baseSeconds: number;
  /** Longest block, seconds. */
  maxSeconds: number;
  /**
   * When set, the count drains: `threshold` failures in this many seconds (one every `drainSeconds /
   * threshold`, counted from the bucket's last attempt), a leaky bucket; unset, failures stay until the
   * bucket is forgotten.
   */
  drainSeconds?: number;
}

export type BucketScope = "accountClient" | "client" | "account" | "device";

export const SIGN_IN_RULES: Record<BucketScope, BucketRule> = {
  accountClient: { threshold: 5, baseSeconds: 60, maxSeconds: 3600 },
  client: { threshold: 20, baseSeconds: 60, maxSeconds: 3600 },
  // A fixed block, so that an owner without a device cookie waits at most 15 minutes; the draining count, so
  // that one failure after a block cannot start the next (strangers could otherwise keep the account blocked
  // with one request every 15 minutes).
  account: { threshold: 100, baseSeconds: 900, maxSeconds: 900, drainSeconds: 3600 },
  device: { threshold: 5, baseSeconds: 60, maxSeconds: 3600 },
};

/** A bucket with no attempt and no block for this long starts again from zero. */
export const SIGN_IN_FORGET_MS = 3600_000;

const PURGE_EVERY_MS = 60_000;

/** How long a block read from the database refuses attempts from memory (ms), however long it lasts. */
export const KNOWN_BLOCK_MS = 5_000;

/** Blocked buckets remembered at once per instance. */
const KNOWN_BLOCKS = 10_000;

/** One sign-in attempt as the throttle sees it. */
export interface SignInAttempt {
  /** The email as typed (normalised by the SignIn schema), known to the service or not. */
  email: string;
  /** The client's address (client-network.ts turns it into the network the limits count). */
  ip: string;
  /** The nonce of the browser's valid device token for this very account (device-cookie.ts), if any. */
  device?: string;
}

/** Whether an attempt may check its password; when not, whole seconds (>= 1) until it may. */
export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

interface Row {
  bucket: string;
  failures: number;
  lastAttemptAt: Date;
  blockedUntil: Date | null;
}

interface Bucket {
  scope: BucketScope;
  key: string;
}

/** A bucket blocking an attempt: the blocking row with the latest end, and the seconds until every block ends. */
interface Block {
  row: Row;
  scope: BucketScope;
  retryAfterSeconds: number;
}

/** Thrown inside the admitting transaction to roll it back when the locked rows refuse the attempt. */
class RefusedAfterLock {
  constructor(readonly block: Block) {}
}

/** Block length after `failures` failures under `rule`, ms (0 while under the threshold). */
export function blockMs(rule: BucketRule, failures: number): number {
  if (failures < rule.threshold) return 0;
  const exponent = Math.min(failures - rule.threshold, 30);
  return Math.min(rule.maxSeconds, rule.baseSeconds * 2 ** exponent) * 1000;
}

/**
 * The failures `row` holds at `now` under `rule`: its count less what has drained since its last attempt
 * (whole failures, rounded down, so that draining never runs ahead), or its count when `rule` does not drain.
 */
export function failuresAt(
  rule: BucketRule,
  row: { failures: number; lastAttemptAt: Date },
  now: number,
): number {
  if (!rule.drainSeconds) return row.failures;
  const drained = Math.floor(
    ((now - row.lastAttemptAt.getTime()) * rule.threshold) / (rule.drainSeconds * 1000),
  );
  return Math.max(0, row.failures - Math.max(0, drained));
}

/**
 * The buckets an attempt counts in, sorted by key (the lock order): its device's alone when it has a
 * valid device token for the account, else per account and client, per client, and per account.
 */
export function signInBuckets(
  attempt: SignInAttempt,
  prefixes: ClientPrefixes = DEFAULT_CLIENT_PREFIXES,
): Bucket[] {
  if (attempt.device) return [{ scope: "device", key: `device:${attempt.device}` }];
  const network = clientNetwork(attempt.ip, prefixes);
  const buckets: Bucket[] = [
    { scope: "accountClient", key: `account-client:${attempt.email} ${network}` },
    { scope: "client", key: `client:${network}` },
    { scope: "account", key: `account:${attempt.email}` },
  ];
  return buckets.sort((a, b) => (a.key < b.key ? -1 : 1));
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
  config,
}: Pick<CoreDeps, "prisma" | "clock" | "logger"> & { config: Pick<CoreDeps["config"], "clientPrefixes"> }) {
  let lastPurge = 0;
  /** Blocks this instance read, by bucket key: until when the block lasts, and when it was read (clock ms). */
  const knownBlocks = new LRUCache<string, { until: number; readAt: number }>({ max: KNOWN_BLOCKS });

  /** The row as it counts at `now`: forgotten rows start from zero. */
  const current = (row: Row, now: number): Row => {
    const quietSince = Math.max(row.lastAttemptAt.getTime(), row.blockedUntil?.getTime() ?? 0);
    return now - quietSince > SIGN_IN_FORGET_MS ? { ...row, failures: 0, blockedUntil: null } : row;
  };

  /** The block `rows` put on an attempt at `now`, or undefined when none of them is blocked. */
  function blockOf(buckets: Bucket[], rows: Row[], now: number): Block | undefined {
    const blocked = rows
      .map((row) => current(row, now))
      .filter((row) => row.blockedUntil && row.blockedUntil.getTime() > now)
      .sort((a, b) => (b.blockedUntil?.getTime() ?? 0) - (a.blockedUntil?.getTime() ?? 0));
    const row = blocked[0];
    if (!row?.blockedUntil) return undefined;
    const scope = buckets.find((bucket) => bucket.key === row.bucket)?.scope ?? "client";
    return {
      row,
      scope,
      retryAfterSeconds: Math.max(1, Math.ceil((row.blockedUntil.getTime() - now) / 1000)),
    };
  }

  /**
   * A refused attempt's one write: `refusals` of the blocking row goes up by one (back to 1 for a new block).
   * The first refusal of a block is written to the audit log.
   */
  async function refuse(block: Block, attempt: SignInAttempt, now: Date): Promise<Admission> {
    if (block.row.blockedUntil)
      knownBlocks.set(block.row.bucket, { until: block.row.blockedUntil.getTime(), readAt: now.getTime() });
    const counted = await prisma.$queryRaw<{ refusals: number }[]>`
      UPDATE "SignInThrottle" SET
        "refusals" = CASE WHEN "auditedBlock" IS NOT DISTINCT FROM "blockedUntil" THEN "refusals" + 1 ELSE 1 END,
        "auditedBlock" = "blockedUntil"
      WHERE "bucket" = ${block.row.bucket} AND "blockedUntil" > ${now}
      RETURNING "refusals"`;
    if (counted[0]?.refusals === 1) {
      await writeAudit(prisma, {
        actor: SYSTEM_ACTOR,
        action: block.scope === "account" ? "session.accountThrottled" : "session.throttled",
        entityType: "session",
        entityId: block.scope === "client" ? attempt.ip : attempt.email,
        after: {
          scope: block.scope,
          email: attempt.email,
          ip: attempt.ip,
          failures: block.row.failures,
          blockedUntil: block.row.blockedUntil,
        },
      });
    }
    return { admitted: false, retryAfterSeconds: block.retryAfterSeconds };
  }

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
     * The refusal of `attempt` when a block this instance read less than `KNOWN_BLOCK_MS` ago still holds one of
     * its buckets, else undefined (decide with `admit`). Never for an attempt with a device cookie (its own bucket
     * may admit it). No I/O, nothing written.
     */
    refusedFromMemory(attempt: SignInAttempt): Admission | undefined {
      if (attempt.device || knownBlocks.size === 0) return undefined;
      const at = clock().getTime();
      let until = 0;
      for (const bucket of signInBuckets(attempt, config.clientPrefixes)) {
        const known = knownBlocks.get(bucket.key);
        if (known && known.until > at && at - known.readAt < KNOWN_BLOCK_MS)
          until = Math.max(until, known.until);
      }
      return until > 0
        ? { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((until - at) / 1000)) }
        : undefined;
    },

    /**
     * Drops every block this instance remembers (`refusedFromMemory`): the next attempts read the database. For
     * whoever changes the table behind the throttle's back (tests resetting it between cases).
     */
    forgetBlocks(): void {
      knownBlocks.clear();
    },

    /**
     * Decides whether `attempt` may check its password, and if so counts it as a failure already
     * (atomically with the decision). A refusal writes one counter increment (and the audit log once per
     * block).
     */
    async admit(attempt: SignInAttempt): Promise<Admission> {
      const now = clock();
      const at = now.getTime();
      const buckets = signInBuckets(attempt, config.clientPrefixes);
      const keys = buckets.map((bucket) => bucket.key);
      const seen = await prisma.signInThrottle.findMany({ where: { bucket: { in: keys } } });
      const early = blockOf(buckets, seen, at);
      if (early) return refuse(early, attempt, now);
      try {
        await prisma.$transaction(
          async (tx) => {
            await tx.signInThrottle.createMany({
              data: keys.map((bucket) => ({ bucket, lastAttemptAt: now })),
              skipDuplicates: true,
            });
            const locked = await tx.$queryRaw<Row[]>`
              SELECT "bucket", "failures", "lastAttemptAt", "blockedUntil"
              FROM "SignInThrottle" WHERE "bucket" IN (${Prisma.join(keys)})
              ORDER BY "bucket" FOR UPDATE`;
            const late = blockOf(buckets, locked, at);
            if (late) throw new RefusedAfterLock(late);
            for (const row of locked.map((r) => current(r, at))) {
              const scope = buckets.find((bucket) => bucket.key === row.bucket)?.scope ?? "client";
              const rule = SIGN_IN_RULES[scope];
              const failures = failuresAt(rule, row, at) + 1;
              const block = blockMs(rule, failures);
              await tx.signInThrottle.update({
                where: { bucket: row.bucket },
                data: { failures, lastAttemptAt: now, blockedUntil: block > 0 ? new Date(at + block) : null },
              });
            }
          },
          { maxWait: 10_000, timeout: 10_000 },
        );
      } catch (error) {
        if (error instanceof RefusedAfterLock) return refuse(error.block, attempt, now);
        throw error;
      }
      purge(now);
      return { admitted: true };
    },

    /**
     * Gives back the failure `admit` counted for a sign-in that succeeded: the device's bucket, or the
     * account-and-client bucket, is cleared; the client and account buckets lose one failure (and their
     * block, when back under the threshold).
     */
    async succeeded(attempt: SignInAttempt): Promise<void> {
      const buckets = signInBuckets(attempt, config.clientPrefixes);
      const key = (scope: BucketScope) => buckets.find((bucket) => bucket.scope === scope)?.key ?? "";
      // What this success lifts is lifted here at once (the database decides again on the next attempt).
      for (const bucket of [
        ...buckets,
        ...signInBuckets({ email: attempt.email, ip: attempt.ip }, config.clientPrefixes),
      ])
        knownBlocks.delete(bucket.key);
      if (attempt.device) {
        await prisma.signInThrottle.deleteMany({ where: { bucket: key("device") } });
        return;
      }
      await prisma.$transaction([
        prisma.signInThrottle.deleteMany({ where: { bucket: key("accountClient") } }),
        ...(["client", "account"] as const).map(
          (scope) => prisma.$executeRaw`
            UPDATE "SignInThrottle" SET "failures" = GREATEST("failures" - 1, 0),
              "blockedUntil" = CASE WHEN "failures" - 1 < ${SIGN_IN_RULES[scope].threshold} THEN NULL
                ELSE "blockedUntil" END
            WHERE "bucket" = ${key(scope)}`,
        ),
      ]);
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
