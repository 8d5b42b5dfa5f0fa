/**
 * Dashboard-only inputs beyond admin.ts: API key operations by id, usage ranges and audit log filters
 * (PRODUCT.md section 4).
 */
import { z } from "zod";
import { PlanLimitsUpdate, PlanName, RateLimitValue, RollGraceSeconds } from "./admin.ts";

export const ApiKeyId = z.uuid({ error: "must be an API key id" });

export const ApiKeyRef = z.strictObject({ id: ApiKeyId });

export const ApiKeyRoll = z.strictObject({
  id: ApiKeyId,
  /** Seconds the old key keeps working; default 24 h. */
  graceSeconds: RollGraceSeconds.default(86_400),
});

/** Change of plan and/or custom limits; `null` clears a custom limit (the plan's applies again). */
export const ApiKeyPlanChange = z
  .strictObject({
    id: ApiKeyId,
    plan: PlanName,
    perMinute: RateLimitValue.nullable().optional(),
    perDay: RateLimitValue.nullable().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.plan === "enterprise" && (v.perMinute == null || v.perDay == null)) {
      ctx.addIssue({
        code: "custom",
        path: ["perMinute"],
        message: "Enterprise keys need custom per-minute and per-day limits",
      });
    }
    if (v.perMinute != null && v.perDay != null && v.perMinute > v.perDay) {
      ctx.addIssue({
        code: "custom",
        path: ["perMinute"],
        message: "the per-minute limit cannot exceed the per-day limit",
      });
    }
  });
export type ApiKeyPlanChange = z.infer<typeof ApiKeyPlanChange>;

export const UsageRange = z.strictObject({
  id: ApiKeyId,
  days: z.int().min(1).max(90).default(30),
});

export const AuditEntityType = z.enum(["pet", "category", "apiKey", "plan", "user"]);
export type AuditEntityType = z.infer<typeof AuditEntityType>;

export const AuditLogQuery = z.object({
  page: z.int().min(1).default(1),
  pageSize: z.int().min(1).max(100).default(25),
  actor: z.string().trim().min(1).max(200).optional(),
  entityType: AuditEntityType.optional(),
  entityId: z.string().trim().min(1).max(100).optional(),
});
export type AuditLogQuery = z.infer<typeof AuditLogQuery>;

/** Plan limits edit; like `PlanLimitsUpdate`, and the per-minute limit may not exceed the per-day one. */
export const PlanLimitsChange = PlanLimitsUpdate.refine((v) => v.perMinute <= v.perDay, {
  path: ["perMinute"],
  message: "the per-minute limit cannot exceed the per-day limit",
});
