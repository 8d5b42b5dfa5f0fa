/**
 * When the client retries a call, and how long it waits (docs/contract.md section 3; docs/interface.md
 * "Limits": wait the Retry-After before retrying, and back off exponentially).
 * Pure functions: the clock and the randomness are passed in, so tests can pin them.
 */

/** The retry budget of one call (every option in milliseconds except `maxAttempts`). */
export interface RetryOptions {
  /** Attempts per call, the first one included (>= 1; 1 turns retries off). Default 4. */
  maxAttempts?: number | undefined;
  /**
   * Most the client waits in total between the attempts of one call. A wait that would go past it is not
   * made: the last error is thrown at once (e.g. a `key_banned` whose Retry-After outlasts the budget).
   * Default 60 000, so a per-minute window's Retry-After is waited out.
   */
  maxDelayMs?: number | undefined;
  /** First backoff step when the response names no Retry-After. Default 500. */
  baseDelayMs?: number | undefined;
  /** Cap of one backoff wait. Default 20 000. */
  maxBackoffMs?: number | undefined;
}

export type RetryPolicy = { [K in keyof RetryOptions]-?: number };

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  maxDelayMs: 60_000,
  baseDelayMs: 500,
  maxBackoffMs: 20_000,
};

/**
 * `options` over the defaults (an option given as undefined keeps its default).
 * @throws RangeError for a non-finite or out-of-range value.
 */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const policy: RetryPolicy = {
    maxAttempts: options.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxBackoffMs: options.maxBackoffMs ?? DEFAULT_RETRY.maxBackoffMs,
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1)
    throw new RangeError(`retry.maxAttempts must be an integer >= 1, got ${policy.maxAttempts}`);
  for (const name of ["maxDelayMs", "baseDelayMs", "maxBackoffMs"] as const) {
    if (!Number.isFinite(policy[name]) || policy[name] < 0)
      throw new RangeError(`retry.${name} must be a finite number >= 0, got ${policy[name]}`);
  }
  return policy;
}

/**
 * Full-jitter exponential backoff ("Exponential Backoff And Jitter", AWS Architecture Blog):
 * `random() * min(maxBackoffMs, baseDelayMs * 2^(retry - 1))` ms before retry number `retry` (1, 2, ...).
 * `random` returns a number in [0, 1).
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxBackoffMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

export interface RetryState {
  /** Attempts made so far (>= 1). */
  attempts: number;
  /** Milliseconds already waited between them. */
  waitedMs: number;
  /** Milliseconds the failed response asked for (Retry-After), if it did. */
  retryAfterMs: number | undefined;
}

/**
 * The wait before the next attempt in ms, or undefined when the budget forbids one (attempts used up, or
 * the wait would take the total past `maxDelayMs`). A Retry-After is waited exactly, never shortened:
 * calling again earlier would only be denied again, and repeated denials get a key banned.
 */
export function nextRetryDelay(
  state: RetryState,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (state.attempts >= policy.maxAttempts) return undefined;
  const delay = state.retryAfterMs ?? backoffDelay(state.attempts, policy, random);
  return state.waitedMs + delay > policy.maxDelayMs ? undefined : delay;
}

/**
 * A Retry-After value (RFC 9110 section 10.2.3: delay-seconds or an HTTP-date) in ms from `nowMs`;
 * undefined when absent or unreadable. A date in the past gives 0.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form starts with the day name; anything else (e.g. "-5", which Date.parse accepts) is junk.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
