/**
 * Dashboard-only inputs beyond admin.ts: API key operations by id, usage ranges and audit log filters
 * (docs/contract.md section 4).
 */
import { z } from "zod";
import { RollGraceSeconds } from "./admin.ts";
import { DEFAULT_PAGE_SIZE, DEFAULT_ROLL_GRACE_SECONDS, MAX_PAGE_SIZE } from "./defaults.ts";
import { checkLimits, EditablePlanName, PlanName, RateLimitValue } from "./limits.ts";
import { humanText } from "./text.ts";

export const ApiKeyId = z.uuid({ error: "must be an API key id" });

export const ApiKeyRef = z.strictObject({ id: ApiKeyId });

export const ApiKeyRoll = z.strictObject({
  id: ApiKeyId,
  /** Seconds the old key keeps working; default 24 h. */
  graceSeconds: RollGraceSeconds.default(DEFAULT_ROLL_GRACE_SECONDS),
});

/** Change of plan and/or custom limits; `null` clears a custom limit (the plan's applies again). */
export const ApiKeyPlanChange = z
  .strictObject({
    id: ApiKeyId,
    plan: PlanName,
    perMinute: RateLimitValue.nullable().optional(),
    perDay: RateLimitValue.nullable().optional(),
  })
  .superRefine(checkLimits);
export type ApiKeyPlanChange = z.infer<typeof ApiKeyPlanChange>;

export const UsageRange = z.strictObject({
  id: ApiKeyId,
  days: z.int().min(1).max(90).default(30),
});

export const AuditEntityType = z.enum(["pet", "category", "apiKey", "plan", "user", "session"]);
export type AuditEntityType = z.infer<typeof AuditEntityType>;

/** Audit log filters (no paging): who, which entity, and a time range `[from, to)` of ISO instants. */
export const AuditLogFilter = z
  .object({
    actor: humanText({ max: 200 }).optional(),
    entityType: AuditEntityType.optional(),
    entityId: humanText({ max: 100 }).optional(),
    from: z.iso.datetime({ error: "must be a date and time" }).optional(),
    to: z.iso.datetime({ error: "must be a date and time" }).optional(),
  })
  .refine((v) => !v.from || !v.to || v.from < v.to, {
    path: ["to"],
    message: "must be after the start of the range",
  });
export type AuditLogFilter = z.infer<typeof AuditLogFilter>;

export const AuditLogQuery = z.intersection(
  AuditLogFilter,
  z.object({ page: z.int().min(1).default(1), pageSize: z.int().min(1).max(MAX_PAGE_SIZE).default(25) }),
);
export type AuditLogQuery = z.infer<typeof AuditLogQuery>;

/** Key states an admin can filter by; `working` = neither revoked nor expired. */
export const ApiKeyStateFilter = z.enum(["working", "active", "expiring", "banned", "expired", "revoked"]);
export type ApiKeyStateFilter = z.infer<typeof ApiKeyStateFilter>;

/** One page of the API key list: newest first, searched by name or prefix, filtered by plan and state. */
export const ApiKeySearch = z.object({
  page: z.int().min(1).default(1),
  pageSize: z.int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  /** Name or prefix search; "" means none. */
  query: humanText({ max: 100, allowEmpty: true }).optional(),
  plan: PlanName.optional(),
  state: ApiKeyStateFilter.optional(),
});
export type ApiKeySearch = z.infer<typeof ApiKeySearch>;

/** A plan whose limits admins edit (Enterprise limits are per key). */
export const PlanRef = z.strictObject({ plan: EditablePlanName });

/** A dashboard session of the signed-in user. */
export const SessionRef = z.strictObject({ id: z.uuid({ error: "must be a session id" }) });
