/**
 * The API key policy, defined once (docs/contract.md sections 2 and 3): when a key is live, what its
 * effective limits are, and which limits may be stored. Authentication, the admin views, the key list
 * search, usage figures, plan edits and the CLI all decide through these functions.
 */
import { AppError, type LimitsInput, limitsProblems } from "@petstore/contracts";
import type { ApiKey, Plan, Prisma } from "@petstore/db";

type Lifetime = Pick<ApiKey, "revokedAt" | "expiresAt">;

/** True when `key` is revoked at `now` (revocation takes effect at its instant). */
export const isRevoked = (key: Lifetime, now: Date): boolean => !!key.revokedAt && key.revokedAt <= now;

/** True when `key` has expired at `now` (expiry takes effect at its instant). */
export const isExpired = (key: Lifetime, now: Date): boolean => !!key.expiresAt && key.expiresAt <= now;

/** A key is live when it is neither revoked nor expired at `now` (section 2). */
export const isLive = (key: Lifetime, now: Date): boolean => !isRevoked(key, now) && !isExpired(key, now);

/** Database condition: not revoked at `now`. */
export const notRevokedWhere = (now: Date): Prisma.ApiKeyWhereInput => ({
  OR: [{ revokedAt: null }, { revokedAt: { gt: now } }],
});

/** Database condition: not expired at `now`. */
export const notExpiredWhere = (now: Date): Prisma.ApiKeyWhereInput => ({
  OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
});

/** Database condition: live at `now` (the same rule as `isLive`). */
export const liveWhere = (now: Date): Prisma.ApiKeyWhereInput => ({
  AND: [notRevokedWhere(now), notExpiredWhere(now)],
});

/**
 * Effective limits (section 2): the key's own, else its plan's; `null` when neither has one (an Enterprise
 * key stored without limits, which `assertLimits` prevents).
 * @returns requests per minute and per UTC day.
 */
export function effectiveLimits(
  key: Pick<ApiKey, "perMinute" | "perDay"> & { plan: Pick<Plan, "perMinute" | "perDay"> },
): { perMinute: number | null; perDay: number | null } {
  return { perMinute: key.perMinute ?? key.plan.perMinute, perDay: key.perDay ?? key.plan.perDay };
}

/**
 * Refuses limits that break the rule of section 2 (bounds, Enterprise needs both, per-minute <= per-day),
 * the same rule every input schema applies (`checkLimits`).
 * @throws AppError validation_failed with `details` naming the field.
 */
export function assertLimits(limits: LimitsInput): void {
  const problems = limitsProblems(limits);
  const first = problems[0];
  if (first) throw new AppError("validation_failed", `Invalid ${first.path}: ${first.message}.`, problems);
}
