/**
 * The process runtime: configuration, logger, domain services, the rate limiter and the database operations
 * apps need (`health`, `seed`, `firstStart`), opened once. The web app, the CLI and the tests all start from
 * `openRuntime`. The Prisma client stays inside core (docs/architecture.md, "Layers"). Migrations are not
 * run here (they need the WebAssembly schema engine, which the Next bundle should not carry): callers use
 * `migrate` from `@petstore/core/migrate` first, or as the `prepare` hook (server.ts and the CLI do for the
 * embedded database; `petstore db migrate` for PostgreSQL).
 */
import type { Config } from "@petstore/config";
import { type Database, ensurePlans, openDatabase } from "@petstore/db";
import type { ApiKeyView } from "./api-keys/view.ts";
import { createCore } from "./core.ts";
import { type DatabaseOperations, databaseOperations, registerDatabase } from "./database/operations.ts";
import { createDependencyStatus, type DependencyStatus } from "./dependency-status.ts";
import type { Actor, Clock } from "./deps.ts";
import { type FirstStart, setUpFirstStart } from "./first-start.ts";
import { createHousekeeping, type Housekeeping } from "./housekeeping.ts";
import { createLogger, type Logger } from "./logger.ts";
import { recordedPublicOrigin, recordPublicOrigin } from "./public-origin.ts";
import { createRateLimiter, type RateLimiter } from "./ratelimit/index.ts";
import { ensureServerSecret } from "./secrets.ts";
import { purgeUsageAlerts } from "./usage/alerts.ts";
import { purgeAnalyticsOlderThan, usageHourWriter } from "./usage/flush.ts";
import { createRecentRequestStore } from "./usage/recent.ts";
import { AnalyticsRecorder } from "./usage/recorder.ts";
import { purgeRequestLog, requestLogWriter } from "./usage/request-log.ts";
import { usageSourcesOf } from "./usage/rows.ts";
import { purgeWebhookMessages } from "./webhooks/index.ts";

export interface Runtime extends ReturnType<typeof createCore>, DatabaseOperations {
  config: Config;
  logger: Logger;
  clock: Clock;
  rateLimiter: RateLimiter;
  /** The database's and the rate-limit store's state as found, logged once per change (dependency-status.ts). */
  dependencies: DependencyStatus;
  /** Purges of stale rows: `run()` once (`petstore db purge`), `schedule()` in the server. */
  housekeeping: Housekeeping;
  /**
   * Request analytics counted in memory and flushed in batches (docs/contract.md section 4); undefined with
   * ANALYTICS_ENABLED=false. The REST pipeline calls `record` once per /v1 request.
   */
  analytics: AnalyticsRecorder | undefined;
  /** Lifts a key's ban (its account's, for a key of an account) in the rate-limit store and the database (audited). */
  unbanApiKey(ref: string, actor: Actor): Promise<ApiKeyView>;
  /**
   * Resets today's usage of a key in the usage table and its windows in the rate-limit store (the account's
   * windows, for a key of an account) (audited).
   */
  resetApiKeyUsage(keyId: string, actor: Actor): Promise<void>;
  /**
   * First start on a fresh embedded database outside production: seeds, issues a demo API key and creates
   * the demo admin (first-start.ts); `{}` otherwise or when any key exists.
   */
  firstStart(): Promise<FirstStart>;
  /**
   * Records `config.publicBaseUrl` as the deployment's public origin (public-origin.ts): a server's start does, so
   * that `petstore` commands without PUBLIC_BASE_URL build links on it.
   */
  recordPublicOrigin(): Promise<void>;
  /** Stops webhook delivery (bounded wait), flushes analytics and usage, then closes the limiter and the database. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  config: Config;
  logger?: Logger;
  clock?: Clock;
  /** Runs on the freshly opened database before anything reads it, e.g. `migrate` from `@petstore/core/migrate`. */
  prepare?: (db: Database) => Promise<unknown>;
  /**
   * `recorded` (the `petstore` command): without PUBLIC_BASE_URL (`publicBaseUrlSource` `default`), the runtime's
   * `config.publicBaseUrl` is the origin a server recorded in the database, when one did (source `recorded`).
   */
  publicOrigin?: "configured" | "recorded";
}

/** Opens the database, makes sure the plan rows exist, and wires the services and the rate limiter. */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  let { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel, undefined, config.instanceId);
  const clock = options.clock ?? (() => new Date());
  const db = await openDatabase(config.database);
  const dependencies = createDependencyStatus(logger);
  let cursorSecret: string;
  try {
    await options.prepare?.(db);
    await ensurePlans(db.prisma);
    cursorSecret = config.cursorSecret ?? (await ensureServerSecret(db.prisma, "cursor"));
    const recorded =
      options.publicOrigin === "recorded" && config.publicBaseUrlSource === "default"
        ? await recordedPublicOrigin(db.prisma)
        : undefined;
    if (recorded)
      config = Object.freeze({ ...config, publicBaseUrl: recorded, publicBaseUrlSource: "recorded" });
  } catch (error) {
    await db.close();
    throw error;
  }
  const analytics = config.analytics.enabled
    ? new AnalyticsRecorder({
        write: usageHourWriter(db.prisma),
        writeLog: requestLogWriter(
          (query) => db.queryRows(query),
          (error) =>
            logger.warn({ err: error }, "request log trim failed; the next flush or housekeeping trims"),
        ),
        recent: createRecentRequestStore(config),
        logger,
        dependencies,
        intervalMs: config.analytics.flushIntervalMs,
      })
    : undefined;
  // The usage service reads the recorder's unflushed counts; the limiter reports bans to the key service, and
  // the accounts' scopes read the month's quota from it.
  let limiter: RateLimiter | undefined;
  const core = createCore(
    { prisma: db.prisma, queryRows: (query) => db.queryRows(query), config, clock, logger, dependencies },
    {
      cursorSecret,
      ...(analytics ? { usageSources: usageSourcesOf(analytics) } : {}),
      monthQuota: async (subject, perMonth) => (limiter ? limiter.monthQuota(subject, perMonth) : null),
    },
  );
  const rateLimiter = createRateLimiter({
    config: config.rateLimit,
    clientPrefixes: config.clientPrefixes,
    logger,
    now: () => clock().getTime(),
    onBan: (keyId, until, info) =>
      core.apiKeys.recordBan(keyId, until, { level: info.banNumber, durationSeconds: info.durationSeconds }),
  });
  limiter = rateLimiter;
  await rateLimiter.ready();
  const housekeeping = createHousekeeping({ prisma: db.prisma, config, clock, logger, dependencies });
  housekeeping.register("usageHours", (prisma, now) =>
    purgeAnalyticsOlderThan(prisma, now, config.analytics.retentionDays),
  );
  housekeeping.register("webhookMessages", (prisma, now) => purgeWebhookMessages(prisma, now));
  housekeeping.register("requestLog", purgeRequestLog);
  housekeeping.register("usageAlerts", purgeUsageAlerts);
  const database = databaseOperations(db);
  const runtime: Runtime = {
    ...core,
    ...database,
    config,
    logger,
    clock,
    rateLimiter,
    housekeeping,
    analytics,
    dependencies,
    async unbanApiKey(ref, actor) {
      const key = await core.apiKeys.resolveId(ref);
      await rateLimiter.unban(key.rateLimitSubject);
      return core.apiKeys.clearBan(key.id, actor);
    },
    async resetApiKeyUsage(keyId, actor) {
      await core.usage.resetToday(keyId, actor);
      await rateLimiter.resetUsage((await core.apiKeys.resolveId(keyId)).rateLimitSubject);
    },
    recordPublicOrigin: () => recordPublicOrigin(db.prisma, config.publicBaseUrl),
    firstStart: () =>
      setUpFirstStart({ prisma: db.prisma, config }, { database, apiKeys: core.apiKeys, users: core.users }),
    async close() {
      await core.webhooks.stop();
      await core.orderSweeper.stop();
      await analytics?.close();
      await analytics?.recentStore.close();
      await housekeeping.stop();
      await rateLimiter.close();
      await db.close();
    },
  };
  registerDatabase(runtime, db);
  return runtime;
}
