/**
 * What stands between the rate limiter and its store: the store timeout, a circuit breaker (cockatiel's
 * `ConsecutiveBreaker`) and the counting and logging of store failures. Promises: docs/contract.md section 3
 * "Store"; mechanics: docs/architecture.md "Rate limiter".
 */
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll } from "cockatiel";
import { withTimeout as boundedBy } from "../timeout.ts";
import type { RateLimitStore } from "./store.ts";
import type { RateLimitConfig, RateLimitLogger, RateLimitMetrics } from "./types.ts";

/** Failures are logged at most this often (ms); the ones left unlogged are counted in the next log line. */
const LOG_EVERY_MS = 60_000;

/** `closed`: calls go to the store; `open`: they fail at once; `half-open`: one probe is out. */
export type BreakerState = "closed" | "open" | "half-open";

/** The store did not answer within the configured time. */
export class StoreTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`rate-limit store did not answer within ${ms} ms`);
    this.name = "StoreTimeoutError";
  }
}

/**
 * `withTimeout` (../timeout.ts) for a store call.
 * @throws StoreTimeoutError after `ms`.
 */
export const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  boundedBy(promise, ms, "rate-limit store", () => new StoreTimeoutError(ms));

/** The guard of one limiter's store. */
export interface StoreGuard {
  /**
   * Runs a store call under the breaker and the store timeout: every store round trip of the request path goes
   * through here. @throws BrokenCircuitError while the breaker is open (or probing), StoreTimeoutError, or what
   * `call` throws.
   */
  bounded<T>(call: () => Promise<T>): Promise<T>;
  /** Runs `call` as `bounded` does; on failure counts and logs it and resolves `undefined`. */
  guarded<T>(op: string, call: () => Promise<T>): Promise<T | undefined>;
  /** Counts and logs a failed store operation `op` (a call the open breaker refused is not a store failure). */
  failed(op: string, err: unknown): void;
  /** Logs (at most once a minute) without counting, e.g. background connection errors. */
  log(op: string, err: unknown): void;
  state(): BreakerState;
  /** Stops the probe timer. */
  close(): void;
}

/**
 * Guards `store`. After `config.breaker.failures` consecutive failures or timeouts the breaker opens: every call
 * fails at once for `config.breaker.cooldownMs`, the store's connection is replaced, and then a single probe
 * (a PING after the cool-down, or the next call) decides whether to close it again.
 * @param stats the limiter's metrics (its `storeFailures` is incremented).
 * @param now clock in Unix ms, for the log's pace.
 */
export function createStoreGuard(opts: {
  store: RateLimitStore;
  config: Pick<RateLimitConfig, "store" | "storeTimeoutMs" | "breaker">;
  logger: RateLimitLogger;
  stats: RateLimitMetrics;
  now: () => number;
}): StoreGuard {
  const { store, logger, stats, now } = opts;
  const { storeTimeoutMs: timeoutMs, breaker: breakerConfig } = opts.config;
  const kind = opts.config.store.kind;
  let closed = false;
  let probeTimer: NodeJS.Timeout | undefined;

  const policy = circuitBreaker(handleAll, {
    halfOpenAfter: breakerConfig.cooldownMs,
    breaker: new ConsecutiveBreaker(breakerConfig.failures),
  });
  policy.onBreak(() => {
    logger.warn(
      { store: kind, cooldownMs: breakerConfig.cooldownMs },
      "rate-limit store keeps failing; checks fail open at once until a probe succeeds",
    );
    store.reconnect?.();
    // The breaker's probe is normally the next request after the cool-down; this one closes it even when no
    // request comes (a failed probe opens it again, which schedules the next one).
    clearTimeout(probeTimer);
    probeTimer = setTimeout(() => {
      if (!closed) void bounded(() => store.ping()).catch(() => undefined);
    }, breakerConfig.cooldownMs + 10);
    probeTimer.unref();
  });

  const bounded = <T>(call: () => Promise<T>): Promise<T> => {
    // cockatiel makes callers wait for the probe's outcome while half-open; a request must not wait for it.
    if (policy.state === CircuitState.HalfOpen) return Promise.reject(new BrokenCircuitError());
    return policy.execute(() => withTimeout(call(), timeoutMs));
  };

  let lastLogAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  const log = (op: string, err: unknown) => {
    const t = now();
    if (t - lastLogAt < LOG_EVERY_MS) {
      suppressed++;
      return;
    }
    logger.warn(
      { err, op, store: kind, suppressedSinceLastLog: suppressed },
      "rate-limit store failed; letting requests through",
    );
    lastLogAt = t;
    suppressed = 0;
  };
  const failed = (op: string, err: unknown) => {
    if (!(err instanceof BrokenCircuitError)) stats.storeFailures++;
    log(op, err);
  };

  return {
    bounded,
    async guarded(op, call) {
      try {
        return await bounded(call);
      } catch (err) {
        failed(op, err);
        return undefined;
      }
    },
    failed,
    log,
    state: () =>
      policy.state === CircuitState.Closed
        ? "closed"
        : policy.state === CircuitState.HalfOpen
          ? "half-open"
          : "open",
    close() {
      closed = true;
      clearTimeout(probeTimer);
    },
  };
}
