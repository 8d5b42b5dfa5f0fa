/** Small time helpers for UTC-day arithmetic (PRODUCT.md section 3: the day window is the UTC day). */

export const DAY_MS = 86_400_000;

/** Unix ms of 00:00 UTC of the day containing `ms`. */
export function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

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
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The store did not answer within the configured time. */
export class StoreTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`rate-limit store did not answer within ${ms} ms`);
    this.name = "StoreTimeoutError";
  }
}
