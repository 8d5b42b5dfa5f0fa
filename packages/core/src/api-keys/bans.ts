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

/** Sets the key's `bannedUntil` to `until` and audits `apiKey.ban`; unknown keys are ignored. */
export async function recordBan(
  prisma: PrismaClient,
  keyId: string,
  until: Date,
  ban: BanFacts = { level: 1, durationSeconds: 0 },
): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const before = await tx.apiKey.findUnique({ where: { id: keyId } });
    if (!before) return;
    await tx.apiKey.update({ where: { id: keyId }, data: { bannedUntil: until } });
    await writeAudit(tx, {
      actor: SYSTEM_ACTOR,
      action: "apiKey.ban",
      entityType: "apiKey",
      entityId: keyId,
      before: { prefix: before.prefix, bannedUntil: before.bannedUntil },
      after: { prefix: before.prefix, bannedUntil: until, ...ban },
    });
  });
}

/** How many keys are banned at `now` (`bannedUntil` later than `now`), for the metrics. */
export function countActiveBans(prisma: PrismaClient, now: Date): Promise<number> {
  return prisma.apiKey.count({ where: { bannedUntil: { gt: now } } });
}
