/** Time helpers of the limiter: window ends and store time-outs (the UTC day itself is in ../utc-day.ts). */

export { DAY_MS, utcDayStart } from "../utc-day.ts";

/** Unix ms at which the fixed window of length `windowMs` containing `ms` ends (epoch-aligned). */
export function windowEnd(ms: number, windowMs: number): number {
  return (Math.floor(ms / windowMs) + 1) * windowMs;
}

/**
 * Races `promise` against a timer.
 * @returns the promise's value when it settles within `ms` milliseconds.
 * @throws StoreTimeoutError after `ms`; the late settlement of `promise` is then ignored (never unhandled).
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  // One promise and one timer per call (not Promise.race + finally: this runs on every /v1 request, issue 7).
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreTimeoutError(ms)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The store did not answer within the configured time. */
export class StoreTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`rate-limit store did not answer within ${ms} ms`);
    this.name = "StoreTimeoutError";
  }
}
