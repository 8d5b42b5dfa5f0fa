/**
 * Public types of the rate limiter (docs/contract.md section 3 "Rate limits"; docs/interface.md "Limits";
 * mechanics: docs/architecture.md "Rate limiter").
 * Times are Unix milliseconds unless a name says otherwise.
 */
import type { Config } from "@petstore/config";

/** The `rateLimit` part of the validated configuration (see packages/config). */
export type RateLimitConfig = Config["rateLimit"];

/** Which backing store holds the counters. */
export type StoreKind = "redis" | "upstash" | "memory";

/** Which per-address bucket a request without a valid key counts in: the API's or the dashboard's. */
export type AnonymousScope = "api" | "dashboard" | "metrics";

/** Name of a fixed window as it appears in the `RateLimit` / `RateLimit-Policy` headers. */
export type WindowName = "minute" | "day" | "month";

/** State of one fixed window after a check. */
export interface WindowState {
  name: WindowName;
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window (>= 0). */
  remaining: number;
  /** Unix ms at which the current window ends (the day at 00:00 UTC, the month at 00:00 UTC on the 1st). */
  resetMs: number;
  /** Window length in whole seconds (`w=` of RateLimit-Policy). */
  windowSeconds: number;
}

/**
 * Outcome of a check, in numbers (the HTTP surface formats them as the rate-limit headers of docs/contract.md
 * section 3).
 * - allowed: the request may proceed (also when the store failed: `degraded: true`, "fail open").
 * - code: only on denial; `rate_limited` (the minute or day window is exhausted), `quota_exceeded` (the month's
 *   quota is, and the request cannot succeed before the month ends) or `key_banned`.
 * - windows: every window that applies ([] when the limiter is disabled).
 * - reported: the window X-RateLimit-* describe: the one with the fewest remaining requests, or on a
 *   denial the window that denied (while banned: remaining 0, reset = end of the ban).
 * - retryAfterSeconds: only on denial; whole seconds >= 1 until the denying window resets / the ban ends.
 */
export interface RateLimitDecision {
  allowed: boolean;
  code?: "rate_limited" | "quota_exceeded" | "key_banned";
  /** Clock reading (`now()`, Unix ms) the decision was made at; `t=` values are relative to it. */
  at: number;
  windows: WindowState[];
  reported?: WindowState;
  retryAfterSeconds?: number;
  /** Unix ms the ban ends, when `code` is `key_banned`. */
  bannedUntil?: number;
  /** True when the store did not answer and the request was let through unchecked. */
  degraded?: boolean;
}

/** Limits of one API key, resolved by the caller from the plan or the key's custom limits. */
export interface KeyLimits {
  /**
   * Whose windows and ban these are: the key's id, or the id of the consumer account whose keys share them
   * (`ApiCaller.rateLimitSubject`). Every `keyId` of the limiter's API means this subject.
   */
  keyId: string;
  /** Requests per minute (>= 1). */
  perMinute: number;
  /** Requests per UTC day (>= 1). */
  perDay: number;
  /** Requests per UTC calendar month (>= 1); null or absent: no monthly quota. */
  perMonth?: number | null;
}

/** A subject's use of its monthly quota (`RateLimiter.monthQuota`). */
export interface MonthQuota {
  /** Requests per UTC calendar month. */
  limit: number;
  /** Requests counted this month (admitted ones; refusals take nothing). */
  used: number;
  /** Unix ms of 00:00 UTC on the 1st of next month, when the count starts over. */
  resetMs: number;
}

/** The part of a pino logger the limiter uses. */
export interface RateLimitLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Facts about a ban just issued, for the audit log. */
export interface BanInfo {
  /** 1 for the first ban of the key this UTC day, 2 for the second, ... */
  banNumber: number;
  durationSeconds: number;
}

/** Counters for monitoring; monotonically increasing since creation. */
export interface RateLimitMetrics {
  /** Checks made (keyed and anonymous). */
  checks: number;
  /** Checks that let the request through after consulting the store (or with the limiter disabled). */
  admitted: number;
  /** Checks that answered 429 (bans included). */
  denied: number;
  /** Of `denied`, those answered `key_banned`. */
  banned: number;
  /** Store operations that failed or timed out. */
  storeFailures: number;
  /** Requests let through unchecked because the store failed. */
  failOpen: number;
  /** Bans issued by this instance. */
  bans: number;
  /** Anonymous refusals being held right now (a gauge, not a counter). */
  heldRefusals: number;
}

/** What `createRateLimiter` returns. Request-path methods never throw; admin methods reject on store failure. */
export interface RateLimiter {
  /**
   * Checks and counts one request of an API key against its minute, UTC-day and (with a quota) UTC-month windows
   * and its ban state, in one store script.
   * Never throws: a store failure or timeout admits the request (`degraded: true`). `storeFailed`: the same
   * request already found the store failing (its anonymous budget check failed open), so it is admitted the same
   * way without a second wait: one request waits for the store at most once.
   */
  checkKey(limits: KeyLimits, options?: { storeFailed?: boolean }): Promise<RateLimitDecision>;
  /**
   * Checks and counts one request without a valid key, per client network (`ip` grouped by the limiter's
   * `clientPrefixes`, ../client-network.ts): in the API's bucket
   * (`anonymousPerMinute`, the default), the dashboard's (`dashboardAnonymousPerMinute`) or that of /metrics
   * (`metricsScrapesPerMinute`). Never throws.
   */
  checkAnonymous(ip: string, scope?: AnonymousScope): Promise<RateLimitDecision>;
  /**
   * Gives back the request an admitted `checkAnonymous(ip)` decision counted in the API's bucket (a key look-up
   * that proved valid, or could not be made). Never throws.
   */
  refundAnonymous(ip: string, decision: RateLimitDecision): Promise<void>;
  /**
   * Resolves when the refusal `decision` of `checkAnonymous` may be answered: after `anonymousRefusalDelayMs`
   * (never past the end of the refusing window), at once for an admitted decision or when too many refusals are
   * held already. Never rejects.
   */
  holdRefusal(decision: RateLimitDecision): Promise<void>;
  /** The end of the key's ban, or null when not banned. Rejects when the store fails. */
  isBanned(keyId: string): Promise<Date | null>;
  /** Lifts a ban (store and local cache) and forgets the key's recent denials. Rejects when the store fails. */
  unban(keyId: string): Promise<void>;
  /**
   * The month's progress of `keyId` (a key's or an account's subject) against `perMonth`: requests counted in the
   * current UTC calendar month (the limiter's own counter: admitted requests) and when the month ends; null
   * without a quota or with the limiter disabled. Rejects when the store fails.
   */
  monthQuota(keyId: string, perMonth: number | null): Promise<MonthQuota | null>;
  /**
   * Resets the key's current minute and UTC-day windows in the store (never the month's: a quota is what was
   * sold, and billing reads the same month). Rejects when the store fails.
   */
  resetUsage(keyId: string): Promise<void>;
  /** Waits (up to `storeTimeoutMs`) until the store takes commands; false when it does not. */
  ready(): Promise<boolean>;
  /**
   * For /readyz and /metrics: whether the store answered a PING within `storeTimeoutMs`, and the state of the
   * breaker in front of it. Never throws.
   */
  health(): Promise<{ store: StoreKind; ok: boolean; breaker: "closed" | "open" | "half-open" }>;
  metrics(): RateLimitMetrics;
  /** Stops timers, flushes usage, closes the store it created. Idempotent. */
  close(): Promise<void>;
}
