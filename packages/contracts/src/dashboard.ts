/**
 * Dashboard-only inputs beyond admin.ts: API key operations by id, usage ranges and audit log filters
 * (docs/contract.md section 4).
 */
import { z } from "zod";
import { RollGraceSeconds } from "./admin.ts";
import { DEFAULT_PAGE_SIZE, DEFAULT_ROLL_GRACE_SECONDS, MAX_PAGE_SIZE } from "./defaults.ts";
import { IpAllowlist } from "./ip-allowlist.ts";
import { checkLimits, EditablePlanName, PlanName, RateLimitValue } from "./limits.ts";
import { ApiKeyScopes } from "./scopes.ts";
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

/** New scopes of a key (docs/contract.md section 2, "Scopes"): they replace the old ones. */
export const ApiKeyScopesChange = z.strictObject({ id: ApiKeyId, scopes: ApiKeyScopes });
export type ApiKeyScopesChange = z.infer<typeof ApiKeyScopesChange>;

/**
 * A key's new IP allowlist (docs/contract.md section 2, "IP allowlists"): it replaces the old one; empty lifts it.
 * Admins set any key's, members their account's keys' (the portal).
 */
export const ApiKeyAllowlistChange = z.strictObject({ id: ApiKeyId, allowedIps: IpAllowlist });
export type ApiKeyAllowlistChange = z.infer<typeof ApiKeyAllowlistChange>;

export const UsageRange = z.strictObject({
  id: ApiKeyId,
  days: z.int().min(1).max(90).default(30),
});

/**
 * One UTC day of a key's usage by hour (`YYYY-MM-DD`). The shape is checked here; whether the day is past the
 * service's today or its retention of hourly rows is the usage service's to say (it has the clock).
 */
export const KeyUsageDay = z.strictObject({
  id: ApiKeyId,
  day: z.iso.date({ error: "Use a calendar day as YYYY-MM-DD, e.g. 2026-11-27." }),
});

export const AuditEntityType = z.enum([
  "pet",
  "category",
  "apiKey",
  "plan",
  "user",
  "session",
  "webhookEndpoint",
  "account",
  "invitation",
  "order",
  "brownout",
]);
export type AuditEntityType = z.infer<typeof AuditEntityType>;

/** Every action the audit log records, by entity (docs/contract.md section 4 "Audit log"). */
export const AUDIT_ACTIONS = [
  "pet.create",
  "pet.update",
  "pet.setStatus",
  "pet.delete",
  "category.create",
  "category.rename",
  "category.delete",
  "apiKey.create",
  "apiKey.update",
  "apiKey.scopes",
  "apiKey.allowlist",
  "brownout.schedule",
  "brownout.cancel",
  "apiKey.roll",
  "apiKey.revoke",
  "apiKey.leak",
  "apiKey.ban",
  "apiKey.unban",
  "apiKey.resetUsage",
  "plan.update",
  "user.create",
  "user.setRole",
  "user.activate",
  "user.deactivate",
  "user.endSession",
  "user.endOtherSessions",
  "user.endAllSessions",
  "session.signIn",
  "session.signOut",
  "session.signInFailed",
  "session.throttled",
  "session.accountThrottled",
  "webhookEndpoint.create",
  "webhookEndpoint.update",
  "webhookEndpoint.enable",
  "webhookEndpoint.disable",
  "webhookEndpoint.rotate",
  "webhookEndpoint.test",
  "webhookEndpoint.replay",
  "webhookEndpoint.delete",
  "account.create",
  "account.setPlan",
  "account.suspend",
  "account.resume",
  "account.ban",
  "account.setLimits",
  "account.setAlertThresholds",
  "account.setMemberRole",
  "account.removeMember",
  "invitation.create",
  "invitation.accept",
  "order.complete",
  "order.cancel",
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS, { error: "must be an action the audit log records" });
export type AuditAction = z.infer<typeof AuditAction>;

/**
 * Audit log filters (no paging): who, what action, which entity, and a time range `[from, to)` of ISO
 * instants.
 */
export const AuditLogFilter = z
  .object({
    actor: humanText({ max: 200 }).optional(),
    action: AuditAction.optional(),
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

/**
 * Keys by what they did lately: used in the last 7 days, not used in the last 30 (or never), refused with 429 in
 * the last 7 days, banned in the last 30 days.
 */
export const ApiKeyActivityFilter = z.enum(["used7d", "unused30d", "refused7d", "banned30d"]);
export type ApiKeyActivityFilter = z.infer<typeof ApiKeyActivityFilter>;

/**
 * Orders of the API key list. `created`: newest first, and with a search, exact name matches first, then
 * prefix matches (of the key's prefix or its name), then the rest; `lastUsed`: most recently used first, never
 * used last; `getPetCalls`: most calls of the deprecated getPet in the last 30 days first; `requestsToday`: most
 * requests that reached the API today (UTC) first; `rateLimited7d`: most requests refused with 429 (a rate-limit
 * window or a ban) in the last 7 days first.
 */
export const ApiKeySort = z.enum([
  "created",
  "lastUsed",
  "getPetCalls",
  "requestsToday",
  "requests7d",
  "requests30d",
  "rateLimited7d",
  "bans30d",
]);
export type ApiKeySort = z.infer<typeof ApiKeySort>;

/** One page of the API key list: searched by name or prefix, filtered by plan and state, sorted. */
export const ApiKeySearch = z.object({
  page: z.int().min(1).default(1),
  pageSize: z.int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  /** Name or prefix search; "" means none. */
  query: humanText({ max: 100, allowEmpty: true }).optional(),
  plan: PlanName.optional(),
  state: ApiKeyStateFilter.optional(),
  activity: ApiKeyActivityFilter.optional(),
  sort: ApiKeySort.default("created"),
});
export type ApiKeySearch = z.infer<typeof ApiKeySearch>;

/**
 * The keys that called the deprecated getPet (docs/contract.md section 4 "API keys"): the window in days (7 or
 * 30, ending now) and the order, most calls first (`calls`) or the most recent last call first (`lastCall`).
 */
export const DeprecatedCallsFilter = z.object({
  days: z.union([z.literal(7), z.literal(30)], { error: "must be 7 or 30" }).default(30),
  sort: z.enum(["calls", "lastCall"]).default("calls"),
});
export type DeprecatedCallsFilter = z.infer<typeof DeprecatedCallsFilter>;

/** One page of the keys that called getPet. */
export const DeprecatedCallsQuery = DeprecatedCallsFilter.extend({
  page: z.int().min(1).default(1),
  pageSize: z.int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
});
export type DeprecatedCallsQuery = z.infer<typeof DeprecatedCallsQuery>;

/** A plan whose limits admins edit (Enterprise limits are per key). */
export const PlanRef = z.strictObject({ plan: EditablePlanName });

/** A plan's cap on the live keys of one consumer account (docs/contract.md section 7); null: no cap. */
export const PlanKeyCapChange = z.strictObject({
  plan: PlanName,
  maxKeys: z.int().min(1).max(10_000).nullable(),
});

/** A dashboard session of the signed-in user. */
export const SessionRef = z.strictObject({ id: z.uuid({ error: "must be a session id" }) });
