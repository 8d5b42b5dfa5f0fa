/**
 * What every domain service is built from: the Prisma client, the validated config, a clock and a logger.
 * The clock is injectable so tests can cross instants such as getPet's sunset.
 */
import type { Config } from "@petstore/config";
import type { Database, PrismaClient } from "@petstore/db";
import type { Logger } from "pino";
import type { DependencyStatus } from "./dependency-status.ts";

export type Clock = () => Date;

export interface CoreDeps {
  prisma: PrismaClient;
  /** Read-only raw statements of the hot path, past Prisma's per-statement work where it can (db's client.ts). */
  queryRows: Database["queryRows"];
  config: Config;
  clock: Clock;
  logger: Logger;
  /** The dependencies' state (dependency-status.ts): background work reports an unreachable database there. */
  dependencies?: DependencyStatus;
}

/**
 * Who made a change, for the audit log: `user:<email>`, `cli:<os user>`, `api-key:<prefix>`, or
 * `SYSTEM_ACTOR` for what the service decided itself (bans, sign-in throttling).
 */
export type Actor = string;

/** The audit actor of decisions the service makes on its own. */
export const SYSTEM_ACTOR = "system";
