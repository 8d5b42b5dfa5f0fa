/**
 * `createCore(deps)` wires the domain services shared by the REST API, the tRPC dashboard and the CLI;
 * no business rule lives anywhere else.
 */
import { createApiKeyService } from "./api-keys/service.ts";
import { createAuditLogService } from "./audit-log.ts";
import { createCategoryService } from "./categories.ts";
import type { CoreDeps } from "./deps.ts";
import { createIdempotencyService } from "./idempotency.ts";
import { createPetService } from "./pets/service.ts";
import { createPlanService } from "./plans.ts";
import { createSessionService } from "./sessions/service.ts";
import { createUsageService } from "./usage/service.ts";
import { createUserService } from "./users/service.ts";

export function createCore(deps: CoreDeps) {
  return {
    pets: createPetService(deps),
    categories: createCategoryService(deps),
    apiKeys: createApiKeyService(deps),
    idempotency: createIdempotencyService(deps),
    plans: createPlanService(deps),
    users: createUserService(deps),
    sessions: createSessionService(deps),
    auditLog: createAuditLogService(deps),
    usage: createUsageService(deps),
  };
}

export type Core = ReturnType<typeof createCore>;
