/**
 * The rate-limit state a response reports (docs/contract.md section 3): `X-RateLimit-Limit`,
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset` of the window with the fewest requests left (on a 429:
 * the window that denied).
 */

export interface RateLimitState {
  /** Requests the window allows. */
  limit: number;
  /** Requests left in it. */
  remaining: number;
  /** When it resets: Unix time in seconds. */
  reset: number;
}

/** The state in `headers`, or undefined when a header is missing or not a whole number. */
export function rateLimitOf(headers: Headers): RateLimitState | undefined {
  const read = (name: string) => {
    const value = headers.get(name);
    return value !== null && /^[0-9]+$/.test(value) ? Number(value) : undefined;
  };
  const limit = read("x-ratelimit-limit");
  const remaining = read("x-ratelimit-remaining");
  const reset = read("x-ratelimit-reset");
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, reset };
}
