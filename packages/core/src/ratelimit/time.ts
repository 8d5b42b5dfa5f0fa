/** Time helpers of the limiter: window ends and store time-outs (the UTC day itself is in ../utc-day.ts). */

import { withTimeout as boundedBy } from "../timeout.ts";

export { DAY_MS, utcDayStart } from "../utc-day.ts";

/** Unix ms at which the fixed window of length `windowMs` containing `ms` ends (epoch-aligned). */
export function windowEnd(ms: number, windowMs: number): number {
  return (Math.floor(ms / windowMs) + 1) * windowMs;
}

/**
 * `withTimeout` (../timeout.ts) for a store call.
 * @throws StoreTimeoutError after `ms`.
 */
export const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  boundedBy(promise, ms, "rate-limit store", () => new StoreTimeoutError(ms));

/** The store did not answer within the configured time. */
export class StoreTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`rate-limit store did not answer within ${ms} ms`);
    this.name = "StoreTimeoutError";
  }
}
