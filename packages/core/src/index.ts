/**
 * Domain services shared by the REST API, the tRPC dashboard and the CLI. `createCore(deps)` wires them;
 * no business rule lives anywhere else.
 */
import { createApiKeyService } from "./api-keys/service.ts";
import { createCategoryService } from "./categories.ts";
import type { CoreDeps } from "./deps.ts";
import { createIdempotencyService } from "./idempotency.ts";
import { createPetService } from "./pets/service.ts";
import { createPlanService } from "./plans.ts";

export * from "./api-keys/format.ts";
export * from "./api-keys/service.ts";
export * from "./audit.ts";
export * from "./categories.ts";
export * from "./deps.ts";
export * from "./idempotency.ts";
export * from "./logger.ts";
export * from "./pets/service.ts";
export * from "./plans.ts";

export function createCore(deps: CoreDeps) {
  return {
    deps,
    pets: createPetService(deps),
    categories: createCategoryService(deps),
    apiKeys: createApiKeyService(deps),
    idempotency: createIdempotencyService(deps),
    plans: createPlanService(deps),
  };
}

export type Core = ReturnType<typeof createCore>;
