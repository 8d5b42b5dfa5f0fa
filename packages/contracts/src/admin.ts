/**
 * Inputs of the dashboard's tRPC procedures and the CLI (docs/contract.md sections 2 and 4). The REST API's
 * schemas (pets.ts) are reused wherever the same value is meant, so validation messages match the API;
 * limits follow the one rule of limits.ts.
 */

import { MAX_CATEGORY_NAME_LENGTH } from "./categories.ts";
import { COUNT_CAP, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./defaults.ts";
import { checkLimits, EditablePlanName, MonthlyQuotaValue, PlanName, RateLimitValue } from "./limits.ts";
import { CategoryId, PetName, PetStatus } from "./pets.ts";
import { ApiKeyScopes } from "./scopes.ts";
import { humanText } from "./text.ts";
import { z } from "./zod.ts";

export const EntityId = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

export const PetSearch = z.object({
  page: z.int().min(1).default(1),
  pageSize: z.int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  sortBy: z.enum(["id", "name"]).default("id"),
  sortDirection: z.enum(["asc", "desc"]).default("asc"),
  status: z.union([PetStatus, z.literal("none")]).optional(),
  categoryId: EntityId.optional(),
  /** Name search; "" means none. */
  query: humanText({ max: 100, allowEmpty: true }).optional(),
});
export type PetSearch = z.infer<typeof PetSearch>;

export const PetUpdate = z.strictObject({
  id: EntityId,
  name: PetName.optional(),
  categoryId: CategoryId.optional(),
  status: PetStatus.nullable().optional(),
});
export type PetUpdate = z.infer<typeof PetUpdate>;

/** Most animals one bulk status change sets (selected rows, or every row a filter matches), and its undo puts back. */
export const MAX_BULK_STATUS = 1_000;

/** Most animals one CSV download of the animals table holds: as many as the table counts exactly. */
export const MAX_ANIMALS_CSV = COUNT_CAP;

export const PetBulkStatus = z.object({
  ids: z.array(EntityId).min(1).max(MAX_BULK_STATUS),
  status: PetStatus.nullable(),
});

/** The animals table's filters without paging or sort: what "every animal matching" means. */
export const PetFilter = PetSearch.pick({ status: true, categoryId: true, query: true });
export type PetFilter = z.infer<typeof PetFilter>;

/** A bulk status change of every animal `filter` matches (at most MAX_BULK_STATUS of them). */
export const PetBulkStatusMatching = z.object({
  filter: PetFilter,
  status: PetStatus.nullable(),
});

/** The animals CSV's query: the table's filters and sort, as the page's URL names them. */
export const PetExportQuery = PetSearch.pick({
  status: true,
  categoryId: true,
  query: true,
  sortBy: true,
  sortDirection: true,
});
export type PetExportQuery = z.infer<typeof PetExportQuery>;

/** The undo of a bulk status change: the statuses it replaced (`previous`), and the status it set (`from`). */
export const PetStatusRestore = z.object({
  previous: z
    .array(z.object({ id: EntityId, status: PetStatus.nullable() }))
    .min(1)
    .max(MAX_BULK_STATUS),
  from: PetStatus.nullable(),
});

export const CategoryName = humanText({ max: MAX_CATEGORY_NAME_LENGTH });

/** `30d`, `12h`, `90m`, `0` → seconds. */
export const DurationText = z
  .string()
  .regex(/^(0|[1-9][0-9]*[smhd])$/, { error: "must look like 30d, 12h, 90m or 0" })
  .transform((v) => {
    if (v === "0") return 0;
    const unit = { s: 1, m: 60, h: 3600, d: 86400 }[v.at(-1) as "s" | "m" | "h" | "d"];
    return Number(v.slice(0, -1)) * unit;
  });

export const ApiKeyCreate = z
  .object({
    name: humanText({ max: 100 }),
    plan: PlanName,
    perMinute: RateLimitValue.optional(),
    perDay: RateLimitValue.optional(),
    /** Seconds from now until the key expires; absent = never. */
    expiresInSeconds: z
      .int()
      .min(60)
      .max(5 * 365 * 86400)
      .optional(),
    /** What the key may do (docs/contract.md section 2, "Scopes"); absent = every scope. */
    scopes: ApiKeyScopes.optional(),
  })
  .superRefine(checkLimits);
export type ApiKeyCreate = z.infer<typeof ApiKeyCreate>;

/** Grace period of a roll, seconds: 0 = revoke the old key now, at most 7 days. */
export const RollGraceSeconds = z
  .int()
  .min(0)
  .max(7 * 86400);

/**
 * Plan limits edit (admins): Free, Pro or Business; the per-minute limit may not exceed the per-day one.
 * `perMonth`: the plan's monthly quota (null: none; absent: unchanged).
 */
export const PlanLimitsChange = z
  .object({
    plan: EditablePlanName,
    perMinute: RateLimitValue,
    perDay: RateLimitValue,
    perMonth: MonthlyQuotaValue.nullable().optional(),
  })
  .superRefine(checkLimits);
export type PlanLimitsChange = z.infer<typeof PlanLimitsChange>;

export const UserRole = z.enum(["staff", "admin"]);
export const Email = z.email({ error: "must be an email address" }).trim().toLowerCase().max(200);
export const Password = z.string().min(12, { error: "must be at least 12 characters" }).max(200);
