/**
 * Verification of bearer keys on the request path (docs/contract.md section 2, and section 3 "Anonymous traffic";
 * docs/architecture.md "Admission of a /v1 request").
 *
 * `peek` answers from memory only: a malformed key or one of the other deployment is invalid without I/O; a key
 * verified less than 4 s ago is answered from the positive cache, one found unknown, revoked or expired less than
 * 4 s ago from the negative cache (so a revocation, or a key that becomes valid, takes effect within 5 s on every
 * instance). Anything else is `unknown` and needs `lookup`, which reads the key from the database; the look-ups
 * of one event-loop turn share one statement (DataLoader), so a flood of unknown keys costs one query per turn,
 * and the REST pipeline lets a client address make them only within its anonymous budget. The first request
 * that needs a key's look-up claims it (`claim`); until it looks the key up or gives up, `peek` says `pending`
 * and concurrent requests with the same key wait for that one look-up instead of using budget of their own.
 *
 * A key in use is read again in the background in the last second of its entry, so a busy key never waits for
 * the database; the keys first used in an event-loop turn have their lastUsedAt written by one statement. A key whose entry is older than 4 s is still remembered as once valid (`wasValid`, up to 10,000 keys),
 * so that a key idle for a while is looked up again without its client address's anonymous budget: a flood from
 * that address cannot lock a real key out.
 */
import type { ApiKeyScope, PlanName } from "@petstore/contracts";
import { type ApiKey, type Plan, Prisma, type PrismaClient, type QueryRows } from "@petstore/db";
import DataLoader from "dataloader";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import type { DependencyStatus } from "../dependency-status.ts";
import type { Clock } from "../deps.ts";
import { endOfTurn } from "../end-of-turn.ts";
import { isDatabaseUnavailable } from "../error-translator.ts";
import { compiledAllowlist, type IpAllowlist } from "./allowlist.ts";
import { hashApiKey, type KeyEnvironment, parseApiKey } from "./format.ts";
import { effectiveLimits, isLive } from "./policy.ts";

/** The caller resolved from a valid key: what rate limiting, logging and `GET /v1/me` need. */
export interface ApiCaller {
  keyId: string;
  prefix: string;
  /** The key's name, as its issuer gave it (what `GET /v1/me` shows the caller). */
  name: string;
  /** When the key expires (a roll's grace end included), or null when it does not. */
  expiresAt: Date | null;
  plan: PlanName;
  /** Effective limits: the key's custom limits, else its plan's. */
  perMinute: number;
  perDay: number;
  /** Requests per UTC calendar month: the account's quota, else its plan's; null: none. */
  perMonth: number | null;
  /** The account's usage alert thresholds (percent of the day and month windows); empty outside accounts. */
  alertThresholds: readonly number[];
  /** What the key may do (docs/contract.md section 2, "Scopes"); cached like the rest, so a change applies within 5 s. */
  scopes: readonly ApiKeyScope[];
  /** The consumer account that holds the key (docs/contract.md section 7), or null for a key outside accounts. */
  account: { id: string; name: string } | null;
  /**
   * Whose minute and day windows and ban the request counts against (docs/contract.md section 3): the account's
   * id for a key of an account (its keys share the account's windows), else the key's id.
   */
  rateLimitSubject: string;
  /**
   * The addresses the key may call from (docs/contract.md section 2, "IP allowlists"), compiled when the key was
   * read, or null when it may call from anywhere.
   */
  allowlist: IpAllowlist | null;
}

/**
 * What memory alone says about a token: a caller, invalid, unknown (a database look-up is needed; `wasValid`
 * when the key was valid when last read, longer than the cache's 4 s ago, so it is no forged key), or pending
 * (another request claimed the key's look-up: `result` resolves with the caller, `undefined` for an invalid key,
 * or `null` when that request gave the look-up up; it rejects when the database fails).
 */
export type KeyCheck =
  | { kind: "valid"; caller: ApiCaller }
  | { kind: "invalid" }
  | { kind: "unknown"; wasValid: boolean }
  | { kind: "pending"; result: Promise<ApiCaller | undefined | null> };

/** The right to look a key up, taken by the first request that needs it (`claim`). */
export interface LookupClaim {
  /** Looks the key up (as `lookup`) and hands the outcome to the requests waiting for it. */
  lookup(): Promise<ApiCaller | undefined>;
  /** Gives the look-up up: the waiting requests decide again on their own. */
  release(): void;
}

/** How long a verified or refused key is answered from memory (ms): below the 5 s revocation bound. */
export const KEY_CACHE_TTL_MS = 4_000;
/**
 * A key in use is read again in the background in the last second of its entry: a key used at least once a second
 * never waits for the database, and one used less often costs one read per entry, as without the refresh.
 */
const REFRESH_AFTER_MS = 3_000;
const MAX_ENTRIES = 10_000;
const LAST_USED_INTERVAL_MS = 60_000;

/** What verifying a key needs of it and of its plan. */
type VerifiedKey = Pick<
  ApiKey,
  | "id"
  | "prefix"
  | "name"
  | "planName"
  | "environment"
  | "perMinute"
  | "perDay"
  | "revokedAt"
  | "expiresAt"
  | "scopes"
> & {
  plan: Pick<Plan, "perMinute" | "perDay">;
  account: { id: string; name: string } | null;
  /** The monthly quota: the account's, else the plan's (null: none). */
  perMonth: number | null;
  alertThresholds: number[] | null;
  allowlist: IpAllowlist | null;
};

type KeyRow = Omit<VerifiedKey, "plan" | "account" | "allowlist"> & {
  hash: string;
  allowedIps: string[];
  planPerMinute: number | null;
  planPerDay: number | null;
  accountId: string | null;
  accountName: string | null;
};

const verifiedKey = ({
  hash: _,
  planPerMinute,
  planPerDay,
  accountId,
  accountName,
  allowedIps,
  ...key
}: KeyRow): VerifiedKey => ({
  ...key,
  plan: { perMinute: planPerMinute, perDay: planPerDay },
  account: accountId ? { id: accountId, name: accountName ?? "" } : null,
  allowlist: compiledAllowlist(allowedIps),
});

export function createKeyVerifier(deps: {
  prisma: PrismaClient;
  /** Runs the look-up statement (db's `queryRows`: node-postgres on PostgreSQL). */
  queryRows: QueryRows;
  environment: KeyEnvironment;
  clock: Clock;
  logger: Logger;
  /** Where an unreachable database is reported (one log line per outage), instead of a line per failed write. */
  dependencies?: DependencyStatus;
}) {
  const { prisma, queryRows, environment, clock, logger, dependencies } = deps;
  // Entries age by the injected clock, read on every check (ttlResolution 0), so tests can move it.
  const perf = { now: () => clock().getTime() };
  // A valid entry outlives its 4 s: past it, it still says the key was valid once (`wasValid`).
  const valid = new LRUCache<string, { key: VerifiedKey; fetchedAt: number }>({ max: MAX_ENTRIES });
  const invalid = new LRUCache<string, true>({
    max: MAX_ENTRIES,
    ttl: KEY_CACHE_TTL_MS,
    ttlResolution: 0,
    perf,
  });
  const refreshing = new Set<string>();
  /** Claimed look-ups by key hash (requests, not background refreshes). */
  const pending = new Map<string, Promise<ApiCaller | undefined | null>>();
  /** Keys whose lastUsedAt was written in the last minute, by key id. */
  const lastUsedWritten = new LRUCache<string, true>({
    max: MAX_ENTRIES,
    ttl: LAST_USED_INTERVAL_MS,
    ttlResolution: 0,
    perf,
  });
  /** Keys read from the database since the process started (background refreshes included). */
  let keysRead = 0;

  // A key of a suspended account is revoked from the suspension's instant for as long as it lasts (LEAST skips
  // nulls), and an account's own limits are its keys' own, so every check of liveness and limits applies unchanged.
  // A raw statement on the direct path: the look-ups of many keys are on the hot path, and the query builder's
  // plan interpretation and result mapping, or even Prisma's raw statement, would cost more than the statement.
  const loader = new DataLoader<string, VerifiedKey | null, string>(async (hashes) => {
    keysRead += hashes.length;
    const rows = await queryRows<KeyRow>(Prisma.sql`
      SELECT k."id", k."hash", k."prefix", k."name", k."planName"::text AS "planName",
             k."environment"::text AS "environment", COALESCE(a."perMinute", k."perMinute") AS "perMinute",
             COALESCE(a."perDay", k."perDay") AS "perDay", LEAST(k."revokedAt", a."suspendedAt") AS "revokedAt", k."expiresAt",
             k."scopes", k."allowedIps", p."perMinute" AS "planPerMinute", p."perDay" AS "planPerDay",
             COALESCE(a."perMonth", p."perMonth") AS "perMonth", a."alertThresholds",
             a."id"::text AS "accountId", a."name" AS "accountName"
      FROM "ApiKey" k JOIN "Plan" p ON p."name" = k."planName"
      LEFT JOIN "Account" a ON a."id" = k."accountId"
      WHERE k."hash" = ANY(${[...new Set(hashes)]}::text[])`);
    const byHash = new Map(rows.map((r) => [r.hash, verifiedKey(r)]));
    return hashes.map((h) => byHash.get(h) ?? null);
  }, endOfTurn);

  /** lastUsedAt of the keys first used in one event-loop turn, written by one statement. */
  const lastUsed = new DataLoader<string, void, string>(async (ids) => {
    const at = clock();
    try {
      await prisma.$executeRaw`UPDATE "ApiKey" SET "lastUsedAt" = ${at} WHERE "id" = ANY(${[...ids]}::uuid[])`;
    } catch (error) {
      if (dependencies && isDatabaseUnavailable(error)) dependencies.down("database", error);
      else logger.warn({ err: error, keys: ids.length }, "could not record lastUsedAt");
    }
    return ids.map(() => undefined);
  }, endOfTurn);

  /**
   * The caller of `key` at `nowMs`, or undefined when it is not live or has no limits; `use` says the request
   * uses the key (its lastUsedAt is written).
   */
  function callerOf(key: VerifiedKey, nowMs: number, use = true): ApiCaller | undefined {
    const now = new Date(nowMs);
    if (key.environment !== environment || !isLive(key, now)) return undefined;
    const { perMinute, perDay } = effectiveLimits(key);
    if (perMinute === null || perDay === null) return undefined;
    if (use && !lastUsedWritten.has(key.id)) {
      lastUsedWritten.set(key.id, true);
      void lastUsed.load(key.id);
    }
    return {
      keyId: key.id,
      prefix: key.prefix,
      name: key.name,
      expiresAt: key.expiresAt,
      plan: key.planName,
      perMinute,
      perDay,
      perMonth: key.perMonth,
      alertThresholds: key.alertThresholds ?? [],
      scopes: key.scopes as ApiKeyScope[],
      account: key.account,
      rateLimitSubject: key.account?.id ?? key.id,
      allowlist: key.allowlist,
    };
  }

  /** Reads `hash` from the database and caches the outcome. @throws the database's error. */
  async function read(hash: string): Promise<VerifiedKey | null> {
    const row = await loader.load(hash);
    const nowMs = clock().getTime();
    if (row) {
      valid.set(hash, { key: row, fetchedAt: nowMs });
      invalid.delete(hash);
    } else {
      invalid.set(hash, true);
      valid.delete(hash);
    }
    return row;
  }

  /**
   * Reads `token`'s key from the database (batched per event-loop turn) and caches the outcome.
   * @returns its caller, or undefined when it is unknown, revoked, expired or of the other deployment.
   * @throws what the database throws (unreachable: translated to 503 by core's error translator).
   */
  async function lookup(token: string): Promise<ApiCaller | undefined> {
    if (parseApiKey(token) !== environment) return undefined;
    const row = await read(hashApiKey(token));
    return row ? callerOf(row, clock().getTime()) : undefined;
  }

  function refreshInBackground(hash: string): void {
    if (refreshing.has(hash)) return;
    refreshing.add(hash);
    read(hash)
      .catch(() => undefined) // the entry expires as usual; the next request looks the key up itself
      .finally(() => refreshing.delete(hash));
  }

  return {
    /** What memory says about `token` (no I/O besides a background refresh of a busy key). */
    peek(token: string): KeyCheck {
      if (parseApiKey(token) !== environment) return { kind: "invalid" };
      const hash = hashApiKey(token);
      const nowMs = clock().getTime();
      const cached = valid.get(hash);
      if (cached && nowMs - cached.fetchedAt < KEY_CACHE_TTL_MS) {
        if (nowMs - cached.fetchedAt >= REFRESH_AFTER_MS) refreshInBackground(hash);
        const caller = callerOf(cached.key, nowMs);
        return caller ? { kind: "valid", caller } : { kind: "invalid" };
      }
      if (invalid.has(hash)) return { kind: "invalid" };
      const result = pending.get(hash);
      return result ? { kind: "pending", result } : { kind: "unknown", wasValid: cached !== undefined };
    },

    /** Reads `token`'s key from the database (see `lookup` above). */
    lookup,

    /**
     * Whose key `token` was when this instance last read it, however long ago (up to the 10,000 keys remembered),
     * if it is still live by what was read: for the request log and usage of a request the database could not
     * admit (a 503 during an outage), never for admission. No I/O.
     * @returns the caller, or undefined for a token never read as valid here.
     */
    lastKnown(token: string): ApiCaller | undefined {
      if (parseApiKey(token) !== environment) return undefined;
      const cached = valid.peek(hashApiKey(token));
      return cached ? callerOf(cached.key, clock().getTime(), false) : undefined;
    },

    /**
     * Claims the look-up of `token` (whose `peek` said `unknown`): until the claim looks it up or is released,
     * `peek` answers `pending` for it.
     */
    claim(token: string): LookupClaim {
      const hash = hashApiKey(token);
      let resolve: (caller: ApiCaller | undefined | null) => void = () => {};
      let reject: (error: unknown) => void = () => {};
      const promise = new Promise<ApiCaller | undefined | null>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(() => undefined); // the waiters see the rejection; nobody else must
      pending.set(hash, promise);
      const settle = () => {
        if (pending.get(hash) === promise) pending.delete(hash);
      };
      return {
        lookup: async () => {
          try {
            const caller = await lookup(token);
            resolve(caller);
            return caller;
          } catch (error) {
            reject(error);
            throw error;
          } finally {
            settle();
          }
        },
        release: () => {
          settle();
          resolve(null);
        },
      };
    },

    /** Drops every cached entry of `keyId` (the instance that changed the key applies it at once). */
    forget(keyId: string): void {
      const hashes = [...valid.entries()].filter(([, entry]) => entry.key.id === keyId).map(([hash]) => hash);
      for (const hash of hashes) valid.delete(hash);
    },

    /** Keys this process has read from the database to verify a bearer token (a count; for /metrics). */
    keysRead: (): number => keysRead,
  };
}

export type KeyVerifier = ReturnType<typeof createKeyVerifier>;
