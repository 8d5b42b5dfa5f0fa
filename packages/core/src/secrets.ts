/**
 * Secrets the service makes for itself when configuration gives none (table ServerSecret). The first
 * instance to need one inserts 32 random bytes; an instance racing it loses the insert (ON CONFLICT DO
 * NOTHING) and reads the winner's value, so every instance and restart on one database agrees.
 */
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@petstore/db";

/** The secret called `name` (base64url text), created on first use. */
export async function ensureServerSecret(prisma: PrismaClient, name: string): Promise<string> {
  await prisma.serverSecret.createMany({
    data: [{ name, value: randomBytes(32).toString("base64url") }],
    skipDuplicates: true,
  });
  const row = await prisma.serverSecret.findUniqueOrThrow({ where: { name } });
  return row.value;
}
