/**
 * Held refusals (docs/contract.md section 3 "Anonymous traffic"): the 429 of a client address over one of its
 * anonymous budgets is answered only after `delayMs` (never past the end of the window that refused it). An HTTP/1.1
 * connection carries one request at a time, so a client that keeps calling while refused sends at most one request
 * per connection per delay, and a flood from a fixed number of connections is slowed to that pace instead of
 * taking the CPU that keyed `/v1` traffic needs. A held refusal costs a timer and the request's objects; at most
 * `MAX_HELD_REFUSALS` are held at once, and beyond that a refusal is answered at once, as with `delayMs` 0.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { RateLimitDecision } from "./types.ts";

/** Refusals held at once per instance, bounding the memory a flood can hold (a few KB each). */
export const MAX_HELD_REFUSALS = 2_000;

const atOnce = Promise.resolve();

/**
 * `hold(decision)`: a promise that resolves once the refusal `decision` may be answered, at once for an admitted
 * decision. `delayMs` in milliseconds (0: never hold); `clock` in Unix ms.
 */
export function createRefusalHold(
  delayMs: number,
  clock: () => number,
): { hold(decision: RateLimitDecision): Promise<void>; held(): number } {
  let held = 0;
  return {
    hold(decision) {
      if (decision.allowed || delayMs <= 0 || held >= MAX_HELD_REFUSALS) return atOnce;
      const untilReset = (decision.reported?.resetMs ?? Number.POSITIVE_INFINITY) - clock();
      const ms = Math.min(delayMs, untilReset);
      if (!(ms > 0)) return atOnce;
      held++;
      return delay(ms).finally(() => {
        held--;
      });
    },
    held: () => held,
  };
}
