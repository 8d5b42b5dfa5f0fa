/**
 * The process runtime: configuration, logger, database, domain services and the rate limiter, opened once.
 * The web app, the CLI and the tests all start from `openRuntime`. Migrations are not run here (they need
 * the WebAssembly schema engine, which the Next bundle should not carry): callers run `deployMigrations`
 * first (server.ts and the CLI do for the embedded database; `petstore db migrate` for PostgreSQL).
 */
import type { Config } from "@petstore/config";
import { type Database, ensurePlans, openDatabase } from "@petstore/db";
import type { ApiKeyView } from "./api-keys/view.ts";
import { createCore } from "./core.ts";
import type { Actor, Clock } from "./deps.ts";
import { createLogger, type Logger } from "./logger.ts";
import { createRateLimiter, type RateLimiter } from "./ratelimit/index.ts";
import { ensureServerSecret } from "./secrets.ts";
import { purgeAnalyticsOlderThan, usageHourWriter } from "./usage/flush.ts";
import { createRecentRequestStore } from "./usage/recent.ts";
import { AnalyticsRecorder } from "./usage/recorder.ts";

export interface Runtime extends ReturnType<typeof createCore> {
  config: Config;
  logger: Logger;
  db: Database;
  clock: Clock;
  rateLimiter: RateLimiter;
  /**
   * Request analytics counted in memory and flushed in batches (docs/contract.md section 4); undefined with
   * ANALYTICS_ENABLED=false. The REST pipeline calls `record` once per /v1 request.
   */
  analytics: AnalyticsRecorder | undefined;
  /** Lifts a key's ban in the rate-limit store and in the database (audited). */
  unbanApiKey(ref: string, actor: Actor): Promise<ApiKeyView>;
  /** Resets today's usage of a key in the rate-limit store and in the usage table (audited). */
  resetApiKeyUsage(keyId: string, actor: Actor): Promise<void>;
  /** Flushes analytics and usage, then closes the limiter and the database. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  config: Config;
  logger?: Logger;
  clock?: Clock;
  /** Runs on the freshly opened database before anything reads it, e.g. `deployMigrations` (tests, CLI). */
  prepare?: (db: Database) => Promise<unknown>;
}

/** Opens the database, makes sure the plan rows exist, and wires the services and the rate limiter. */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? (() => new Date());
  const db = await openDatabase(config.database);
  let cursorSecret: string;
  try {
    await options.prepare?.(db);
    await ensurePlans(db.prisma);
    cursorSecret = config.cursorSecret ?? (await ensureServerSecret(db.prisma, "cursor"));
  } catch (error) {
    await db.close();
    throw error;
  }
  const analytics = config.analytics.enabled
    ? new AnalyticsRecorder({
        write: usageHourWriter(db.prisma),
        recent: createRecentRequestStore(config),
        logger,
        afterFlush: () => purgeHourly(),
      })
    : undefined;
  let lastPurge = 0;
  const purgeHourly = () => {
    if (clock().getTime() - lastPurge < 3_600_000) return;
    lastPurge = clock().getTime();
    purgeAnalyticsOlderThan(db.prisma, clock(), config.analytics.retentionDays).catch((error: unknown) =>
      logger.warn({ err: error }, "could not purge old analytics rows"),
    );
  };
  // The usage service reads the recorder's unflushed counts; the limiter reports bans to the key service.
  const core = createCore(
    { prisma: db.prisma, config, clock, logger },
    { cursorSecret, ...(analytics ? { usageSources: bindSources(analytics) } : {}) },
  );
  const rateLimiter = createRateLimiter({
    config: config.rateLimit,
    logger,
    now: () => clock().getTime(),
    onBan: (keyId, until, info) =>
      core.apiKeys.recordBan(keyId, until, { level: info.banNumber, durationSeconds: info.durationSeconds }),
  });
  await rateLimiter.ready();
  purgeHourly();
  return {
    ...core,
    config,
    logger,
    db,
    clock,
    rateLimiter,
    analytics,
    async unbanApiKey(ref, actor) {
      const keyId = await core.apiKeys.resolveId(ref);
      await rateLimiter.unban(keyId);
      return core.apiKeys.clearBan(keyId, actor);
    },
    async resetApiKeyUsage(keyId, actor) {
      await core.usage.resetToday(keyId, actor);
      await rateLimiter.resetUsage(keyId);
    },
    async close() {
      await analytics?.close();
      await analytics?.recentStore.close();
      await rateLimiter.close();
      await db.close();
    },
  };
}

/** The recorder as the usage service reads it. */
function bindSources(recorder: AnalyticsRecorder) {
  return {
    pendingRows: () => recorder.pendingRows(),
    pendingRecent: (keyId: string) => recorder.pendingRecent(keyId),
    dropPending: (keyId: string, since: number) => recorder.dropPending(keyId, since),
    recent: recorder.recentStore,
  };
}
