/**
 * SEAM to the rate limiter (packages/core/src/ratelimit/, written separately). When it lands it is attached
 * as `runtime.rateLimiter`; the dashboard calls it through `rateLimiterControls(runtime)` so that lifting a
 * ban or resetting usage also clears the limiter's own state, and "requests today" can come from its
 * live counters. Until then these calls are no-ops and usage is read from the ApiKeyUsage table.
 */
export interface RateLimiterControls {
  /** Lifts a ban in the rate-limit store. */
  unban?(keyId: string): Promise<unknown>;
  /** Resets the key's current minute and day windows in the store. */
  resetUsage?(keyId: string): Promise<unknown>;
}

/** The limiter controls attached to `runtime`, or an empty object before the limiter exists. */
export function rateLimiterControls(runtime: object): RateLimiterControls {
  const limiter = (runtime as { rateLimiter?: RateLimiterControls }).rateLimiter;
  return limiter ?? {};
}
