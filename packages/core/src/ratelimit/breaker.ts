/**
 * The circuit breaker around the rate-limit store (docs/contract.md section 3 "Store"; cockatiel's
 * `ConsecutiveBreaker`). After `failures` consecutive failures or timeouts it opens: every store call fails at
 * once with `BrokenCircuitError`, so requests fail open without waiting for a store that does not answer. After
 * `cooldownMs` the next call is the single probe (half-open); calls made while the probe is out fail at once
 * too. The probe's success closes the breaker, its failure opens it for another cool-down.
 */
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll } from "cockatiel";

export { BrokenCircuitError };

/** `closed`: calls go to the store; `open`: they fail at once; `half-open`: one probe is out. */
export type BreakerState = "closed" | "open" | "half-open";

export interface StoreBreaker {
  /** Runs `call` through the breaker. @throws BrokenCircuitError while open (or probing), else what `call` throws. */
  run<T>(call: () => Promise<T>): Promise<T>;
  state(): BreakerState;
}

/**
 * @param options.failures consecutive failures that open the breaker (>= 1)
 * @param options.cooldownMs how long it stays open before a probe (ms)
 * @param options.onOpen called each time it opens (e.g. to replace a connection that went silent)
 */
export function createStoreBreaker(options: {
  failures: number;
  cooldownMs: number;
  onOpen?: () => void;
}): StoreBreaker {
  const policy = circuitBreaker(handleAll, {
    halfOpenAfter: options.cooldownMs,
    breaker: new ConsecutiveBreaker(options.failures),
  });
  if (options.onOpen) policy.onBreak(options.onOpen);
  const state = (): BreakerState =>
    policy.state === CircuitState.Closed
      ? "closed"
      : policy.state === CircuitState.HalfOpen
        ? "half-open"
        : "open";
  return {
    run(call) {
      // cockatiel makes callers wait for the probe's outcome while half-open; a request must not wait for it.
      if (policy.state === CircuitState.HalfOpen) return Promise.reject(new BrokenCircuitError());
      return policy.execute(call);
    },
    state,
  };
}
