/**
 * Inputs of consumer accounts and the developer portal (docs/contract.md section 7): the admin's Accounts page and
 * `petstore accounts`, invitations, and the portal's keys. Shared by the tRPC procedures and the CLI so that every
 * surface shows the same validation messages.
 */
import { Email, Password } from "./admin.ts";
import { ApiKeyId } from "./dashboard.ts";
import { checkLimits, MonthlyQuotaValue, PlanName, RateLimitValue } from "./limits.ts";
import { ApiKeyScopes } from "./scopes.ts";
import { humanText } from "./text.ts";
import { UserId, UserName } from "./users.ts";
import { z } from "./zod.ts";

export const AccountId = z.uuid({ error: "must be an account id" });

export const AccountName = humanText({ max: 100 });

/** Roles of an account's members: the owner also invites members. */
export const MemberRole = z.enum(["owner", "developer"]);
export type MemberRole = z.infer<typeof MemberRole>;

/** A new consumer account and the invitation of its first owner. */
export const AccountCreate = z.strictObject({
  name: AccountName,
  plan: PlanName,
  ownerEmail: Email,
});
export type AccountCreate = z.infer<typeof AccountCreate>;

export const AccountState = z.enum(["active", "suspended"]);
export type AccountState = z.infer<typeof AccountState>;

/** The admin's Accounts list: name search, plan and state filters, a sort. */
export const AccountListFilter = z.object({
  query: humanText({ max: 100, allowEmpty: true }).optional(),
  plan: PlanName.optional(),
  state: AccountState.optional(),
  sortBy: z.enum(["name", "createdAt", "keys", "requestsToday"]).default("name"),
  sortDirection: z.enum(["asc", "desc"]).default("asc"),
});
export type AccountListFilter = z.infer<typeof AccountListFilter>;

export const AccountPlanChange = z.strictObject({ id: AccountId, plan: PlanName });

export const AccountSuspension = z.strictObject({ id: AccountId, suspended: z.boolean() });

/**
 * An account's own limits, shared by its keys instead of its plan's (null: the plan's); both are required on
 * Enterprise, and the per-minute limit may not exceed the per-day one. `perMonth`: its own monthly quota (null: the
 * plan's; absent: unchanged).
 */
export const AccountLimitsChange = z
  .strictObject({
    id: AccountId,
    perMinute: RateLimitValue.nullable(),
    perDay: RateLimitValue.nullable(),
    perMonth: MonthlyQuotaValue.nullable().optional(),
  })
  .superRefine(checkLimits);

/** An invitation to an account, by an admin (`accountId` given) or the account's owner (their own account). */
export const InvitationCreate = z.strictObject({ email: Email, role: MemberRole });
export type InvitationCreate = z.infer<typeof InvitationCreate>;

/** A member of an account, by an owner of that account (their own account) or an admin (`accountId` given). */
export const MemberRef = z.strictObject({ id: UserId });

/** A member's new role; an account always keeps at least one owner. */
export const MemberRoleChange = z.strictObject({ id: UserId, role: MemberRole });
export type MemberRoleChange = z.infer<typeof MemberRoleChange>;

/** The secret of an invitation link: 32 random bytes as base64url. */
export const InvitationToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, { error: "This invitation link is not valid." });

/** Accepting an invitation: the new member's name and password. */
export const InvitationAccept = z.strictObject({
  token: InvitationToken,
  name: UserName,
  password: Password,
});
export type InvitationAccept = z.infer<typeof InvitationAccept>;

/** A key a member creates for their account: the plan is the account's; scopes and expiry as for admins. */
export const PortalKeyCreate = z.strictObject({
  name: humanText({ max: 100 }),
  scopes: ApiKeyScopes.optional(),
  expiresInSeconds: z
    .int()
    .min(60)
    .max(5 * 365 * 86400)
    .optional(),
});
export type PortalKeyCreate = z.infer<typeof PortalKeyCreate>;

/** The window of an account's usage charts: the last `days` UTC days (the last 24 hours by hour besides). */
export const AccountUsageRange = z.strictObject({ days: z.int().min(1).max(90).default(30) });

/**
 * Usage alert thresholds (docs/contract.md section 7, "Usage alerts"): percentages of the day and month windows,
 * 1 to 100, at most 5, each once, in ascending order; empty: no alerts.
 */
export const AlertThresholds = z
  .array(z.int().min(1).max(100), { error: "must be a list of percentages" })
  .max(5, { error: "at most 5 thresholds" })
  .transform((ts) => [...new Set(ts)].sort((a, b) => a - b));

/** An account's alert thresholds, set by an admin (`id`) or by the account's owner (their own account). */
export const AlertThresholdsChange = z.strictObject({ thresholds: AlertThresholds });
export const AccountAlertThresholdsChange = z.strictObject({ id: AccountId, thresholds: AlertThresholds });

/** A UTC calendar month, `YYYY-MM` (the billing export's period; docs/contract.md section 7, "Usage for billing"). */
export const BillingMonth = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: "must be a month as YYYY-MM" })
  .meta({ description: "A UTC calendar month, YYYY-MM." });

/** The billing export's query: a month, and (admins only) one account; without it, every account. */
export const BillingExportQuery = z.strictObject({ month: BillingMonth, account: AccountId.optional() });
export type BillingExportQuery = z.infer<typeof BillingExportQuery>;

/** The operations a request-log entry names (`other`: a request that matched none). */
export const LoggedOperation = z.enum([
  "listPets",
  "createPet",
  "getPet",
  "updatePet",
  "listCategories",
  "getMe",
  "createOrder",
  "listOrders",
  "getOrder",
  "completeOrder",
  "cancelOrder",
  "getInventory",
  "other",
]);

/** The portal's request log: filters by key, status (or class), operation, time range and request id; paged. */
export const RequestLogFilter = z.strictObject({
  keyId: ApiKeyId.optional(),
  status: z.union([z.int().min(100).max(599), z.enum(["2xx", "4xx", "5xx"])]).optional(),
  operation: LoggedOperation.optional(),
  from: z.iso.datetime({ error: "must be an instant such as 2026-11-28T10:00:00Z" }).optional(),
  to: z.iso.datetime({ error: "must be an instant such as 2026-11-28T11:00:00Z" }).optional(),
  /** The `X-Request-Id` a client holds. */
  requestId: z.string().trim().min(1).max(200).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.int().min(1).max(100).default(50),
});
export type RequestLogFilter = z.infer<typeof RequestLogFilter>;
