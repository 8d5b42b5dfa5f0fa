/**
 * `petstore db seed --scale` (docs/operations.md, "Measuring the dashboard at scale"): fills a new, empty
 * PostgreSQL database with the scale data set (1,000,000 animals, 5,000 API keys, ~2.1 million hourly usage
 * rows, 200,000 audit entries; `@petstore/db` `seedScaleData`), so that the dashboard can be measured where
 * its queries start to hurt. Refused in production, on the embedded PGlite database (a development store
 * that would take far longer to fill) and on a database that holds anything but the reference and demo data
 * (an API key, a user, usage, more than the demo animals).
 */
import { randomBytes } from "node:crypto";
import { AppError } from "@petstore/contracts";
import { DEMO_PET_COUNT, type ScaleSeedResult, seedScaleData } from "@petstore/db";
import type { CoreDeps } from "./deps.ts";
import { hashPassword } from "./users/password.ts";

export type { ScaleSeedResult };

export function createScaleSeeder({ prisma, config, clock }: Pick<CoreDeps, "prisma" | "config" | "clock">) {
  /**
   * Adds the scale data set, ending now.
   * @returns rows added per table (`animals`, `apiKeys`, `usageRows`, `users`, `auditEntries`) and `seconds`.
   * @throws AppError invalid_request in production or on PGlite; conflict when the database holds data.
   */
  return async function seedScale(): Promise<ScaleSeedResult> {
    if (config.environment === "production")
      throw new AppError(
        "invalid_request",
        "The scale data set is for measuring; it is never added in production.",
      );
    if (config.database.kind !== "postgres")
      throw new AppError(
        "invalid_request",
        "The scale data set needs PostgreSQL (set DATABASE_URL to a new, empty database); the embedded database is for development.",
      );
    // A new database: at most the demo animals, no key, no user, no usage.
    const [pets, keys, users, usage] = await Promise.all([
      prisma.pet.count(),
      prisma.apiKey.count(),
      prisma.user.count(),
      prisma.usageHour.findFirst({ select: { hour: true } }),
    ]);
    if (pets > DEMO_PET_COUNT || keys > 0 || users > 0 || usage)
      throw new AppError(
        "conflict",
        `The database already holds data (${pets} animals, ${keys} API keys, ${users} users${usage ? ", usage rows" : ""}); ` +
          "the scale data set goes into a new, empty database.",
      );
    // Nobody knows this password: the scale users fill lists, they never sign in.
    const passwordHash = await hashPassword(randomBytes(24).toString("base64url"), config.passwordHashCost);
    return seedScaleData(prisma, { now: clock(), passwordHash });
  };
}
