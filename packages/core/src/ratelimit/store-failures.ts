/**
 * Store failures of the limiter (docs/contract.md section 3 "Store"): every failure or timeout is counted
 * (`metrics().storeFailures`) and logged at most once a minute, with how many were left unlogged meanwhile.
 */
import { BrokenCircuitError, type StoreBreaker } from "./breaker.ts";
import { withTimeout } from "./time.ts";
import type { RateLimitLogger, RateLimitMetrics, StoreKind } from "./types.ts";

const LOG_EVERY_MS = 60_000;

/** Failure bookkeeping of one limiter. */
export interface StoreFailures {
  /** Logs (rate-limited) without counting, e.g. background connection errors. */
  log(op: string, err: unknown): void;
  /** Counts and logs a failed store operation `op` (a call the open breaker refused is not a store failure). */
  failed(op: string, err: unknown): void;
  /** Runs `call` under the breaker and the timeout; on failure counts and logs it and resolves `undefined`. */
  guarded<T>(op: string, call: () => Promise<T>): Promise<T | undefined>;
}

/**
 * @param stats the limiter's metrics (its `storeFailures` is incremented).
 * @param timeoutMs bound of each guarded call in ms.
 */
export function storeFailures(opts: {
  logger: RateLimitLogger;
  store: StoreKind;
  stats: RateLimitMetrics;
  now: () => number;
  timeoutMs: number;
  breaker: StoreBreaker;
}): StoreFailures {
  let lastLogAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  const log = (op: string, err: unknown) => {
    const t = opts.now();
    if (t - lastLogAt < LOG_EVERY_MS) {
      suppressed++;
      return;
    }
    opts.logger.warn(
      { err, op, store: opts.store, suppressedSinceLastLog: suppressed },
      "rate-limit store failed; letting requests through",
    );
    lastLogAt = t;
    suppressed = 0;
  };
  const failed = (op: string, err: unknown) => {
    if (!(err instanceof BrokenCircuitError)) opts.stats.storeFailures++;
    log(op, err);
  };
  return {
    log,
    failed,
    async guarded(op, call) {
      try {
        return await opts.breaker.run(() => withTimeout(call(), opts.timeoutMs));
      } catch (err) {
        failed(op, err);
        return undefined;
      }
    },
  };
}
