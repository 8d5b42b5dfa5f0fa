/**
 * How much of the process the dashboard may occupy (docs/operations.md "Roles"). In the roles that serve the
 * dashboard, its requests (pages, `/api/trpc`, `/docs`, sign-in; not Next's static files) go through a pool, one
 * for clients without a session this process knows and one for signed-in staff:
 * - `concurrency` places (`DASHBOARD_CONCURRENCY`) with a queue of `queue` (`DASHBOARD_QUEUE`);
 * - in the anonymous pool of an instance that also serves `/v1` (role `all`), a time share
 *   (`DASHBOARD_ANONYMOUS_SHARE`): the places' occupied time, summed over places, may grow by at most `share` ms
 *   per ms of wall-clock time (a token bucket of place-milliseconds holding two seconds' worth; one request counts
 *   at most all of it, the time of the requests in progress counts as it passes, and the bucket goes at most one
 *   bucket into debt). A request uses no CPU outside the time it holds its place, so this bounds the event-loop
 *   share that anonymous dashboard work takes from `/v1` whatever its rate: a concurrency cap alone does not,
 *   since pages answered in a few milliseconds never fill it however many arrive a second.
 * A request beyond these is refused at once (429 with `Retry-After`), never held: the per-address budgets bound
 * each client, this bounds them all together, so that an anonymous flood from many addresses (each within its
 * budget) cannot take the event loop from `/v1`, which never waits here, nor lock staff out of the dashboard.
 */
import type { ServerResponse } from "node:http";

/** Admission of dashboard requests of one kind of client. */
export interface DashboardPool {
  /**
   * Admits the request answered by `res`: resolves to true once it holds a place (at once, or when one frees up
   * for it in arrival order), which it keeps until `res` closes. Returns (or, queued, resolves to) the seconds to
   * send in `Retry-After` (at least 1) when the time share is used up, or at once when every place is taken and
   * the queue is full. A queued
   * request whose connection closes (reset, or destroyed by a timeout) leaves the queue, never resolved; one whose
   * client only half-closed it is still served (Node keeps such a socket open for the answer).
   */
  admit(res: ServerResponse): Promise<true | number> | number;
  /** Requests holding a place, and requests waiting for one. */
  readonly inProgress: number;
  readonly waiting: number;
}

export interface DashboardPoolOptions {
  /** Places (>= 1). */
  concurrency: number;
  /** Requests that may wait for a place (>= 0). */
  queue: number;
  /** Place-milliseconds per wall-clock millisecond (> 0; at or above `concurrency`, never refusing); undefined: none. */
  share?: number;
  /** Monotonic milliseconds (performance.now in the process; a fake one in tests). */
  now: () => number;
}

/** Seconds of the time share's bucket: a burst of anonymous requests may use this much at once. */
const BURST_SECONDS = 2;

/** A pool as above. */
export function createDashboardPool(options: DashboardPoolOptions): DashboardPool {
  const { concurrency, queue, share, now } = options;
  let busy = 0;
  interface Waiter {
    res: ServerResponse;
    admitted: (value: true | number) => void;
    gone: () => void;
  }
  const waiting: Waiter[] = [];
  const capacity = share === undefined ? 0 : share * BURST_SECONDS * 1000;
  /** Place-milliseconds the pool may still use, as of `creditAt`; down to -capacity after slow requests. */
  let credit = capacity;
  let creditAt = now();
  /** The sum of the times the requests holding places took them: their time so far is `busy * now - sinceSum`. */
  let sinceSum = 0;

  /**
   * Seconds to retry after when the share is used up, counting the time of the requests in progress too (else a
   * burst would be let in whole while the share lasts); undefined when a request may take a place.
   */
  const refusal = (): number | undefined => {
    if (share === undefined) return undefined;
    const at = now();
    credit = Math.min(capacity, credit + (at - creditAt) * share);
    creditAt = at;
    const available = credit - Math.min(capacity, busy * at - sinceSum);
    return available > 0 ? undefined : Math.max(1, Math.ceil(-available / share / 1000));
  };

  /** Holds a place for `res` until it closes, then passes the place to the first waiter (`busy` stays) or frees it. */
  const hold = (res: ServerResponse) => {
    const since = now();
    sinceSum += since;
    res.once("close", () => {
      sinceSum -= since;
      if (share !== undefined) {
        refusal();
        // One request counts at most a full bucket, so a single slow one (a route Next loads on its first request,
        // a slow database) empties the pool's share but puts it in no debt; and the pool is never more than one
        // bucket in debt, so slow requests together close it for two seconds at most.
        credit = Math.max(-capacity, credit - Math.min(now() - since, capacity));
      }
      busy--;
      // The waiters take the place in arrival order while the share lasts; once it is used up, they are refused.
      for (let next = waiting.shift(); next; next = waiting.shift()) {
        next.res.off("close", next.gone);
        const refused = refusal();
        if (refused !== undefined) {
          next.admitted(refused);
          continue;
        }
        busy++;
        hold(next.res);
        next.admitted(true);
        return;
      }
    });
  };

  return {
    admit(res) {
      const refused = refusal();
      if (refused !== undefined) return refused;
      if (busy < concurrency) {
        busy++;
        hold(res);
        return Promise.resolve(true);
      }
      if (waiting.length >= queue) return 1;
      return new Promise<true | number>((admitted) => {
        const waiter: Waiter = {
          res,
          admitted,
          gone: () => {
            const at = waiting.indexOf(waiter);
            if (at >= 0) waiting.splice(at, 1);
          },
        };
        res.once("close", waiter.gone);
        waiting.push(waiter);
      });
    },
    get inProgress() {
      return busy;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
