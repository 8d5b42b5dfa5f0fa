/**
 * Bans decided by the rate limiter, in the database: `bannedUntil` on the key and an audit entry with the
 * system as actor (docs/contract.md section 3: bans and their lifting are both in the audit log).
 */
import type { PrismaClient } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import { SYSTEM_ACTOR } from "../deps.ts";

/** What the limiter knows about a ban: its number that UTC day (1 = first) and its length. */
export interface BanFacts {
  level: number;
  durationSeconds: number;
}

/**
 * Records a ban of the limiter's subject `subjectId` (a key, or a consumer account whose keys share windows):
 * sets `bannedUntil` to `until` on the key, or on every key of the account, and audits `apiKey.ban` or
 * `account.ban`; unknown ids are ignored.
 * @returns the ids of the keys banned.
 */
export async function recordBan(
  prisma: PrismaClient,
  subjectId: string,
  until: Date,
  ban: BanFacts = { level: 1, durationSeconds: 0 },
): Promise<string[]> {
  return prisma.$transaction(async (tx) => {
    const keyId = subjectId;
    const before = await tx.apiKey.findUnique({ where: { id: keyId } });
    if (!before) {
      const account = await tx.account.findUnique({ where: { id: subjectId }, select: { id: true } });
      if (!account) return [];
      const keys = await tx.apiKey.findMany({ where: { accountId: account.id }, select: { id: true } });
      await tx.apiKey.updateMany({ where: { accountId: account.id }, data: { bannedUntil: until } });
      await writeAudit(tx, {
        actor: SYSTEM_ACTOR,
        action: "account.ban",
        entityType: "account",
        entityId: account.id,
        after: { bannedUntil: until, keys: keys.length, ...ban },
      });
      return keys.map((k) => k.id);
    }
    await tx.apiKey.update({ where: { id: keyId }, data: { bannedUntil: until } });
    await writeAudit(tx, {
      actor: SYSTEM_ACTOR,
      action: "apiKey.ban",
      entityType: "apiKey",
      entityId: keyId,
      before: { prefix: before.prefix, bannedUntil: before.bannedUntil },
      after: { prefix: before.prefix, bannedUntil: until, ...ban },
    });
    return [keyId];
  });
}

/** How many keys are banned at `now` (`bannedUntil` later than `now`), for the metrics. */
export function countActiveBans(prisma: PrismaClient, now: Date): Promise<number> {
  return prisma.apiKey.count({ where: { bannedUntil: { gt: now } } });
}
