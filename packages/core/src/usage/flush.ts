/**
 * Writes the rate limiter's usage batches to ApiKeyUsage (one row per key per UTC day), adding the batch's
 * counts to what is stored, in one transaction per batch (never one write per request).
 */
import type { PrismaClient } from "@petstore/db";
import type { UsageRow } from "../ratelimit/index.ts";
import { utcDay } from "../utc-day.ts";

export function usageFlusher(prisma: PrismaClient) {
  return async (rows: UsageRow[]): Promise<void> => {
    if (rows.length === 0) return;
    await prisma.$transaction(
      rows.map(({ apiKeyId, day, requests, rateLimited, bans, deprecatedGet }) =>
        prisma.apiKeyUsage.upsert({
          where: { apiKeyId_day: { apiKeyId, day } },
          create: { apiKeyId, day, requests, rateLimited, bans, deprecatedGet },
          update: {
            requests: { increment: requests },
            rateLimited: { increment: rateLimited },
            bans: { increment: bans },
            deprecatedGet: { increment: deprecatedGet },
          },
        }),
      ),
    );
  };
}

/** Deletes usage rows older than `days` UTC days (docs/operations.md "Housekeeping": kept 90 days); returns how many. */
export async function purgeOldUsage(prisma: PrismaClient, now: Date, days = 90): Promise<number> {
  const { count } = await prisma.apiKeyUsage.deleteMany({ where: { day: { lt: utcDay(now, -days) } } });
  return count;
}
