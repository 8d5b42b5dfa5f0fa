/** Plan table (docs/contract.md section 3): list, and admin edits of Free/Pro/Business limits (audited). */
import { type EditablePlanName, PLAN_NAMES, type PlanName } from "@petstore/contracts";
import { assertLimits, liveWhere } from "./api-keys/policy.ts";
import { writeAudit } from "./audit.ts";
import type { Actor, CoreDeps } from "./deps.ts";

export interface PlanView {
  name: PlanName;
  perMinute: number | null;
  perDay: number | null;
  /** Requests per UTC calendar month (docs/contract.md section 3); null: no quota. */
  perMonth: number | null;
  /** Live keys one consumer account on the plan may hold (docs/contract.md section 7); null: no cap. */
  maxKeys: number | null;
}

const toView = (p: PlanView): PlanView => ({
  name: p.name,
  perMinute: p.perMinute,
  perDay: p.perDay,
  perMonth: p.perMonth,
  maxKeys: p.maxKeys,
});

export function createPlanService({ prisma, clock }: Pick<CoreDeps, "prisma" | "clock">) {
  return {
    /**
     * How many keys a change of `plan`'s limits would affect: working keys (neither revoked nor expired)
     * on the plan that take at least one limit from it (no custom value).
     */
    async affectedKeys(plan: EditablePlanName): Promise<number> {
      return prisma.apiKey.count({
        where: { planName: plan, AND: [liveWhere(clock()), { OR: [{ perMinute: null }, { perDay: null }] }] },
      });
    },

    /** All plans in ascending order (Enterprise has no plan-wide limits: they are set per key). */
    async list(): Promise<PlanView[]> {
      const rows = await prisma.plan.findMany();
      return rows.map(toView).sort((a, b) => PLAN_NAMES.indexOf(a.name) - PLAN_NAMES.indexOf(b.name));
    },

    /**
     * Sets a plan's limits and, when `perMonth` is given, its monthly quota (null: none); keys pick the change up
     * within 5 s (their cache lifetime).
     * @throws AppError validation_failed when the limits break the rule (`assertLimits`).
     */
    async update(
      input: { plan: EditablePlanName; perMinute: number; perDay: number; perMonth?: number | null },
      actor: Actor,
    ): Promise<PlanView> {
      assertLimits(input);
      return prisma.$transaction(async (tx) => {
        const before = await tx.plan.findUniqueOrThrow({ where: { name: input.plan } });
        const row = await tx.plan.update({
          where: { name: input.plan },
          data: {
            perMinute: input.perMinute,
            perDay: input.perDay,
            ...(input.perMonth !== undefined ? { perMonth: input.perMonth } : {}),
          },
        });
        await writeAudit(tx, {
          actor,
          action: "plan.update",
          entityType: "plan",
          entityId: input.plan,
          before,
          after: row,
        });
        return toView(row);
      });
    },

    /**
     * Sets how many live keys one consumer account on `plan` may hold (null: no cap); accounts over a lowered cap
     * keep their keys and cannot create more until they are under it. Audited as `plan.update`.
     */
    async setKeyCap(input: { plan: PlanName; maxKeys: number | null }, actor: Actor): Promise<PlanView> {
      return prisma.$transaction(async (tx) => {
        const before = await tx.plan.findUniqueOrThrow({ where: { name: input.plan } });
        const row = await tx.plan.update({ where: { name: input.plan }, data: { maxKeys: input.maxKeys } });
        await writeAudit(tx, {
          actor,
          action: "plan.update",
          entityType: "plan",
          entityId: input.plan,
          before: { maxKeys: before.maxKeys },
          after: { maxKeys: row.maxKeys },
        });
        return toView(row);
      });
    },
  };
}

export type PlanService = ReturnType<typeof createPlanService>;
