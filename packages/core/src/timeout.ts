/**
 * The one timeout helper: every bounded wait on a dependency (the rate-limit store, the database checks of
 * /readyz and /metrics, a shutdown step) goes through `withTimeout`.
 */

/** A wait that did not end within its bound. */
export class TimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = "TimeoutError";
  }
}

/**
 * Settles like `promise` when it settles within `ms` milliseconds.
 * @throws `timeoutError()` (default: TimeoutError naming `what`) after `ms`; the late settlement of `promise` is
 *   then ignored (never an unhandled rejection).
 */
export function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  what = "the operation",
  timeoutError: () => Error = () => new TimeoutError(what, ms),
): Promise<T> {
  // One promise and one timer per call, not Promise.race + finally: the limiter calls this on every /v1 request.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timeoutError()), ms);
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
