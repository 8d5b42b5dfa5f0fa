/**
 * Plans and API key limits (docs/contract.md sections 2 and 3): the plan names in their one order, the bounds
 * of a limit, and THE limits rule: Enterprise keys need custom per-minute and per-day limits, and a
 * per-minute limit never exceeds the per-day one. Every schema that carries limits refines with
 * `checkLimits`; core enforces the same `limitsProblems` again before it writes (`assertLimits`).
 */
import type { ErrorDetail } from "./errors.ts";
import { z } from "./zod.ts";

/** Plan names, smallest first: the order every list and chart shows them in. */
export const PLAN_NAMES = ["free", "pro", "business", "enterprise"] as const;
export const PlanName = z.enum(PLAN_NAMES);
export type PlanName = z.infer<typeof PlanName>;

/** Plans whose limits admins edit; Enterprise limits are set per key. */
export const EditablePlanName = PlanName.exclude(["enterprise"]);
export type EditablePlanName = z.infer<typeof EditablePlanName>;

/** Bounds of one limit (requests per minute or per day). */
export const RATE_LIMIT_MAX = 100_000_000;
export const RateLimitValue = z.int().min(1).max(RATE_LIMIT_MAX);

/** Bounds of a monthly quota (requests per UTC calendar month; a PostgreSQL integer). */
export const MONTHLY_QUOTA_MAX = 2_000_000_000;
export const MonthlyQuotaValue = z.int().min(1).max(MONTHLY_QUOTA_MAX);

export const ENTERPRISE_NEEDS_LIMITS = "Enterprise keys need custom per-minute and per-day limits";
export const PER_MINUTE_ABOVE_PER_DAY = "the per-minute limit cannot exceed the per-day limit";

/** Limits as a key or a plan carries them; `null`/absent = none of its own. */
export interface LimitsInput {
  plan?: PlanName;
  perMinute?: number | null;
  perDay?: number | null;
}

/**
 * What breaks the limits rule in `limits` (docs/contract.md section 2): out-of-bounds values, an Enterprise
 * key without both limits, per-minute above per-day.
 * @returns `[{path, message}]` details (empty when the limits are fine).
 */
export function limitsProblems({ plan, perMinute, perDay }: LimitsInput): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const [path, value] of [
    ["perMinute", perMinute],
    ["perDay", perDay],
  ] as const) {
    if (value != null && !RateLimitValue.safeParse(value).success)
      problems.push({ path, message: `must be a whole number from 1 to ${RATE_LIMIT_MAX}` });
  }
  // Every problem at once (a form shows them all), but the comparison only between two valid values.
  const inBounds = problems.length === 0;
  if (plan === "enterprise" && (perMinute == null || perDay == null))
    problems.push({ path: "perMinute", message: ENTERPRISE_NEEDS_LIMITS });
  if (inBounds && perMinute != null && perDay != null && perMinute > perDay)
    problems.push({ path: "perMinute", message: PER_MINUTE_ABOVE_PER_DAY });
  return problems;
}

/** The limits rule as a zod refinement: `schema.superRefine(checkLimits)`. */
export function checkLimits<T extends LimitsInput>(value: T, ctx: z.RefinementCtx<T>): void {
  for (const { path, message } of limitsProblems(value))
    ctx.addIssue({ code: "custom", path: [path], message });
}
