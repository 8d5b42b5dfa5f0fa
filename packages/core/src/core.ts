/**
 * `createCore(deps)` wires the domain services shared by the REST API, the tRPC dashboard and the CLI;
 * no business rule lives anywhere else (docs/architecture.md "Where each behaviour lives").
 */
import { createInvitationService } from "./accounts/invitations.ts";
import { createAccountScopes, type ScopedServices } from "./accounts/scope.ts";
import { createAccountService } from "./accounts/service.ts";
import { countActiveBans } from "./api-keys/bans.ts";
import { createLeakedKeys } from "./api-keys/leaks.ts";
import { createApiKeySearch } from "./api-keys/search.ts";
import { createApiKeyService } from "./api-keys/service.ts";
import { createAuditLogService } from "./audit-log.ts";
import { createBrownoutService } from "./brownouts.ts";
import { createCategoryService } from "./categories.ts";
import type { CoreDeps } from "./deps.ts";
import { createIdempotencyService } from "./idempotency.ts";
import { createMailer } from "./mail.ts";
import { createOrdersService } from "./orders/service.ts";
import { createOrderSweeper } from "./orders/sweep.ts";
import { createPetService } from "./pets/service.ts";
import { createPlanService } from "./plans.ts";
import { createScaleSeeder } from "./scale-seed.ts";
import { createUserSessionService } from "./sessions/manage.ts";
import { createSessionService } from "./sessions/service.ts";
import { createUsageAlerts } from "./usage/alerts.ts";
import { createRequestLogService } from "./usage/request-log.ts";
import type { UsageSources } from "./usage/rows.ts";
import { createUsageService } from "./usage/service.ts";
import { createPasswordWork } from "./users/password.ts";
import { createUserService } from "./users/service.ts";
import { createWebhooks } from "./webhooks/index.ts";

/**
 * `cursorSecret` signs the cursors of listPets, listCategories and listOrders; `usageSources`: the recorder's
 * unflushed counts.
 */
export function createCore(
  deps: CoreDeps,
  options: {
    cursorSecret: string;
    usageSources?: UsageSources;
    /** The rate limiter's `monthQuota` (the limiter is built after core); null answers without it. */
    monthQuota?: ScopedServices["monthQuota"];
  },
) {
  // The services that write webhook events tell delivery when a change queued some (webhooks/outbox.ts).
  const webhooks = createWebhooks(deps);
  // One cap on password hashing for the instance, shared by sign-ins and staff's user management.
  const passwords = createPasswordWork(
    deps.config.passwordHashing.concurrency,
    deps.config.passwordHashing.queue,
  );
  const apiKeys = createApiKeyService(deps);
  const mailer = createMailer(deps.config, deps.logger);
  const accounts = createAccountService(deps, apiKeys.forget, mailer);
  const invitations = createInvitationService(deps, passwords, mailer);
  const usage = createUsageService(deps, options.usageSources);
  const requestLog = createRequestLogService(deps);
  const orders = createOrdersService(deps, options.cursorSecret, webhooks.queued);
  const usageAlerts = createUsageAlerts(deps, mailer, webhooks.queued);
  return {
    pets: createPetService(deps, options.cursorSecret, webhooks.queued),
    categories: createCategoryService(deps, webhooks.queued, options.cursorSecret),
    /**
     * Orders (orders/service.ts): the store's view of every order; `orders.of(owner)` one account's (or one
     * key's) orders only.
     */
    orders,
    /** Expires lapsed holds and folds the inventory's counts, once a second (orders/sweep.ts). */
    orderSweeper: createOrderSweeper(deps, orders),
    apiKeys: {
      ...apiKeys,
      search: createApiKeySearch(deps),
      /** Keys banned right now (for the metrics). */
      countBanned: () => countActiveBans(deps.prisma, deps.clock()),
    },
    idempotency: createIdempotencyService(deps),
    plans: createPlanService(deps),
    users: createUserService(deps, passwords),
    accounts,
    invitations,
    sessions: createSessionService(deps, passwords),
    userSessions: createUserSessionService(deps),
    auditLog: createAuditLogService(deps),
    usage,
    /** Leaked keys: GitHub's secret-scanning reports and the dashboard's "Mark as leaked" (api-keys/leaks.ts). */
    leakedKeys: createLeakedKeys(deps, mailer, webhooks.queued, (id) => apiKeys.forget([id])),
    /** Usage alerts of consumer accounts, decided from the limiter's counts (usage/alerts.ts). */
    usageAlerts,
    requestLog,
    /** Brownouts of deprecated operations and the notices of keys that still call them (brownouts.ts). */
    brownouts: createBrownoutService(deps, async (keyId) => {
      const [sums] = await usage.withWindowSums([{ id: keyId }]);
      return { getPet: sums?.getPetCalls30d ?? 0 };
    }),
    /** The store's webhook endpoints (every one), delivery log, replay; delivery in this process. */
    webhooks,
    /** One consumer account's services, refusing other accounts' ids (accounts/scope.ts). */
    forAccount: createAccountScopes({
      accounts,
      invitations,
      apiKeys,
      usage,
      requestLog,
      webhooks,
      orders,
      monthQuota: options.monthQuota ?? (async () => null),
    }),
    /** `petstore db seed --scale`: the scale data set in a new PostgreSQL database (scale-seed.ts). */
    seedScale: createScaleSeeder(deps),
  };
}

export type Core = ReturnType<typeof createCore>;
