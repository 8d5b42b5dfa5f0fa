/**
 * When a failed delivery is tried again (docs/contract.md section 6, "Delivery, retries and ordering"): after the
 * schedule's next delay (WEBHOOKS_RETRY_SCHEDULE, by default about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), each
 * multiplied by a random factor in [0.8, 1.2) so that receivers recovering from an outage are not hit by every
 * retry at once (Standard Webhooks, "Deliverability and reliability"). A 429 or 503 with `Retry-After` (RFC 9110
 * section 10.2.3: seconds or an HTTP date) is retried after that instead, at least 1 s and at most the schedule's
 * longest step. Once the schedule is used up the delivery has failed.
 */

/** Spread of the jitter around each step: a factor in [1 - JITTER, 1 + JITTER). */
export const JITTER = 0.2;

/**
 * A Retry-After value (RFC 9110 section 10.2.3: delay-seconds or an HTTP-date) in ms from `nowMs`;
 * undefined when absent or unreadable. A date in the past gives 0. The same rules as @petstore/client's
 * `parseRetryAfter`: the client imports no other package and core does not import the client, so each has its own.
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

/**
 * The delay before the next attempt after failed attempt number `round` (0 = the first attempt of the
 * delivery or of its last replay), or undefined when the schedule is used up.
 * @param scheduleMs the configured steps; `retryAfter` a delay the receiver asked for (429/503 only).
 */
export function nextDelayMs(
  round: number,
  scheduleMs: readonly number[],
  retryAfter?: number,
  random: () => number = Math.random,
): number | undefined {
  const step = scheduleMs[round];
  if (step === undefined) return undefined;
  if (retryAfter !== undefined) return Math.min(Math.max(retryAfter, 1000), Math.max(...scheduleMs));
  return Math.round(step * (1 - JITTER + 2 * JITTER * random()));
}
