/**
 * `createCore(deps)` wires the domain services shared by the REST API, the tRPC dashboard and the CLI;
 * no business rule lives anywhere else.
 */
import { countActiveBans } from "./api-keys/bans.ts";
import { createApiKeySearch } from "./api-keys/search.ts";
import { createApiKeyService } from "./api-keys/service.ts";
import { createAuditLogService } from "./audit-log.ts";
import { createCategoryService } from "./categories.ts";
import type { CoreDeps } from "./deps.ts";
import { createIdempotencyService } from "./idempotency.ts";
import { createPetService } from "./pets/service.ts";
import { createPlanService } from "./plans.ts";
import { createUserSessionService } from "./sessions/manage.ts";
import { createSessionService } from "./sessions/service.ts";
import type { UsageSources } from "./usage/rows.ts";
import { createUsageService } from "./usage/service.ts";
import { createUserService } from "./users/service.ts";

/**
 * `cursorSecret` signs listPets cursors (config CURSOR_SECRET, else `ensureServerSecret`); `usageSources`: the
 * analytics recorder's unflushed counts and the recent-requests store, so usage figures are current.
 */
export function createCore(deps: CoreDeps, options: { cursorSecret: string; usageSources?: UsageSources }) {
  return {
    pets: createPetService(deps, options.cursorSecret),
    categories: createCategoryService(deps),
    apiKeys: {
      ...createApiKeyService(deps),
      search: createApiKeySearch(deps),
      /** Keys banned right now (for the metrics). */
      countBanned: () => countActiveBans(deps.prisma, deps.clock()),
    },
    idempotency: createIdempotencyService(deps),
    plans: createPlanService(deps),
    users: createUserService(deps),
    sessions: createSessionService(deps),
    userSessions: createUserSessionService(deps),
    auditLog: createAuditLogService(deps),
    usage: createUsageService(deps, options.usageSources),
  };
}

export type Core = ReturnType<typeof createCore>;
