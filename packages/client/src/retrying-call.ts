/**
 * One API call with the client's retries: each attempt gets its own timeout; a 429, a 503, an
 * `idempotency_key_in_use` 409 (an earlier attempt of the same createPet still running) or a network error
 * is retried after its Retry-After, or after a full-jitter backoff when there is none, while the retry
 * budget lasts. Anything else, or the last failure, is thrown as a `PetStoreError` / `PetStoreNetworkError`.
 */
import { PetStoreError, PetStoreNetworkError } from "./errors.js";
import { nextRetryDelay, parseRetryAfter, type RetryPolicy } from "./retry.js";

/** What openapi-fetch resolves to: the parsed body as `data` (2xx) or `error` (other), and the response. */
export type AttemptResult<T> = { data?: T; error?: unknown; response: Response };

export interface CallEnvironment {
  policy: RetryPolicy;
  /** Per-attempt time limit, ms. */
  timeoutMs: number;
  /** Waits `ms`; rejects when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
}

/** Statuses and codes worth another attempt: the request did nothing, or will replay what it did. */
function isRetryable(error: PetStoreError): boolean {
  return error.status === 429 || error.status === 503 || error.code === "idempotency_key_in_use";
}

/**
 * Runs `attempt` until it succeeds or the budget is spent.
 * @param operation operationId, for messages.
 * @param attempt sends one request, aborting when `signal` does.
 * @param signal the caller's: aborting it stops the call (no retry) and rejects with its reason.
 * @returns the 2xx body and response.
 * @throws PetStoreError (error response), PetStoreNetworkError (no response), or the caller's abort reason.
 */
export async function retryingCall<T>(
  env: CallEnvironment,
  operation: string,
  attempt: (signal: AbortSignal) => Promise<AttemptResult<T>>,
  signal?: AbortSignal,
): Promise<{ data: T; response: Response }> {
  let waitedMs = 0;
  for (let attempts = 1; ; attempts++) {
    const timeout = AbortSignal.timeout(env.timeoutMs);
    let failure: PetStoreError | PetStoreNetworkError;
    let retryAfterMs: number | undefined;
    try {
      const result = await attempt(signal ? AbortSignal.any([signal, timeout]) : timeout);
      if (result.response.ok) return { data: result.data as T, response: result.response };
      retryAfterMs = parseRetryAfter(result.response.headers.get("retry-after"), env.now());
      failure = PetStoreError.fromResponse(result.response, result.error, attempts, retryAfterMs);
      if (!isRetryable(failure)) throw failure;
    } catch (error) {
      if (error instanceof PetStoreError) throw error;
      if (signal?.aborted) throw signal.reason;
      failure = new PetStoreNetworkError(operation, error, attempts);
    }
    const delay = nextRetryDelay({ attempts, waitedMs, retryAfterMs }, env.policy, env.random);
    if (delay === undefined) throw failure;
    await env.sleep(delay, signal);
    waitedMs += delay;
  }
}
