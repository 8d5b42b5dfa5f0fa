/**
 * The settings of the bench's peers (reference.ts, fastify-peer.ts), read through the project's one validated
 * configuration (`@petstore/config`): the bench starts them with the same variables as the project's servers.
 * @throws ConfigError for a bad variable; Error without DATABASE_URL or REDIS_URL (the peers need both).
 */
import { loadConfig } from "@petstore/config";

export interface PeerConfig {
  databaseUrl: string;
  redisUrl: string;
  /** Redis key prefix of the peer's counters. */
  prefix: string;
  anonymousPerMinute: number;
  logLevel: string;
  port: number;
}

export function peerConfig(): PeerConfig {
  const config = loadConfig();
  if (config.database.kind !== "postgres")
    throw new Error("The bench's peers need DATABASE_URL (PostgreSQL).");
  if (config.rateLimit.store.kind !== "redis") throw new Error("The bench's peers need REDIS_URL.");
  return {
    databaseUrl: config.database.url,
    redisUrl: config.rateLimit.store.url,
    prefix: config.rateLimit.prefix,
    anonymousPerMinute: config.rateLimit.anonymousPerMinute,
    logLevel: config.logLevel,
    port: config.port,
  };
}
