/**
 * How much of the process the dashboard may occupy (docs/operations.md "Roles"). In the roles that serve the
 * dashboard, its requests (pages, `/api/trpc`, `/docs`, sign-in; not Next's static files) go through a pool, one
 * for clients without a session this process knows and one for signed-in staff:
 * - `concurrency` places (`DASHBOARD_CONCURRENCY`) with a queue of `queue` (`DASHBOARD_QUEUE`), where a request
 *   waits at most `maxWaitMs` (`DASHBOARD_QUEUE_TIMEOUT_MS`);
 * - in the anonymous pool of an instance that also serves `/v1` (role `all`), a time share
 *   (`DASHBOARD_ANONYMOUS_SHARE`): the places' occupied time, summed over places, may grow by at most `share` ms
 *   per ms of wall-clock time (a token bucket of place-milliseconds holding two seconds' worth; one request counts
 *   at most all of it, the time of the requests in progress counts as it passes, and the bucket goes at most one
 *   bucket into debt). A request uses no CPU outside the time it holds its place, so this bounds the event-loop
 *   share that anonymous dashboard work takes from `/v1` whatever its rate: a concurrency cap alone does not,
 *   since pages answered in a few milliseconds never fill it however many arrive a second.
 * - a person's few requests (`personal`: among the first `DASHBOARD_ANONYMOUS_BURST` of their address in a
 *   minute) may also draw the bucket into a reserve of `RESERVE_SECONDS` of the share: a few slow pages of one
 *   person (a loaded machine) are not refused because the share is used up. All their time is charged to the same
 *   bucket, so the share still bounds the anonymous dashboard's time over any longer while, floods included.
 * A request beyond these is refused at once (429 with `Retry-After`): the per-address budgets bound each client,
 * this bounds them all together, so that an anonymous flood from many addresses (each within its budget) cannot
 * take the event loop from `/v1`, which never waits here, nor lock staff out of the dashboard. A request whose
 * client went away before it took a place never takes one (its answer's "close" has come already, and a place
 * would never be given back).
 */
import type { ServerResponse } from "node:http";

/** What a pool decides for a request. */
export type Admission =
  /** It holds a place until its answer closes. */
  | true
  /** Its client went away (connection closed) before it took a place: nothing to answer. */
  | "gone"
  /** Refused (429: the share is used up or the queue is full; 503: it waited `maxWaitMs` in the queue). */
  | { status: 429 | 503; retryAfter: number };

/** Admission of dashboard requests of one kind of client. */
export interface DashboardPool {
  /**
   * Admits the request answered by `res` (`personal`: within its address's burst, see the module comment):
   * `true` once it holds a place (at once, or when one frees up for it in arrival order), which it keeps until
   * `res` closes; a refusal at once when the time share is used up or every place is taken and the queue is
   * full, and after `maxWaitMs` in the queue. A queued request whose connection closes (reset, or destroyed by a
   * timeout) leaves the queue (`gone`); one whose client only half-closed it is still served (Node keeps such a
   * socket open for the answer).
   */
  admit(res: ServerResponse, personal?: boolean): Admission | Promise<Admission>;
  /** Requests holding a place, and requests waiting for one. */
  readonly inProgress: number;
  readonly waiting: number;
}

/** `(ms, callback) => cancel`: a one-shot timer. */
export type SetTimer = (ms: number, callback: () => void) => () => void;

export interface DashboardPoolOptions {
  /** Places (>= 1). */
  concurrency: number;
  /** Requests that may wait for a place (>= 0). */
  queue: number;
  /** How long a request may wait in the queue (ms, > 0). */
  maxWaitMs: number;
  /** Place-milliseconds per wall-clock millisecond (> 0; at or above `concurrency`, never refusing); undefined: none. */
  share?: number;
  /** Monotonic milliseconds (performance.now in the process; a fake one in tests). */
  now: () => number;
  /** The queue's timer (setTimeout, unref'd, unless a test injects one). */
  setTimer?: SetTimer;
}

/** Seconds of the time share's bucket: a burst of anonymous requests may use this much at once. */
const BURST_SECONDS = 2;

/** Seconds of the time share that personal requests may draw beyond the bucket. */
export const RESERVE_SECONDS = 20;

const realTimer: SetTimer = (ms, callback) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** Whether `res` has closed (its "close" was emitted, or will never be: its socket is gone). */
const isClosed = (res: ServerResponse) => res.closed || res.destroyed;

/** A pool as above. */
export function createDashboardPool(options: DashboardPoolOptions): DashboardPool {
  const { concurrency, queue, share, now, maxWaitMs } = options;
  const setTimer = options.setTimer ?? realTimer;
  let busy = 0;
  interface Waiter {
    res: ServerResponse;
    personal: boolean;
    admitted: (value: Admission) => void;
    gone: () => void;
    cancelTimer: () => void;
  }
  const waiting: Waiter[] = [];
  const capacity = share === undefined ? 0 : share * BURST_SECONDS * 1000;
  const reserve = share === undefined ? 0 : share * RESERVE_SECONDS * 1000;
  /** Place-milliseconds the pool may still use, as of `creditAt`; below 0 after slow or personal requests. */
  let credit = capacity;
  let creditAt = now();
  /** The sum of the times the requests holding places took them: their time so far is `busy * now - sinceSum`. */
  let sinceSum = 0;
  const timedOut: Admission = { status: 503, retryAfter: Math.max(1, Math.ceil(maxWaitMs / 1000)) };

  /**
   * Seconds to retry after when the share (with the reserve, for a personal request) is used up, counting the
   * time of the requests in progress too (else a burst would be let in whole while the share lasts); undefined
   * when the request may take a place.
   */
  const refusal = (personal: boolean): number | undefined => {
    if (share === undefined) return undefined;
    const at = now();
    credit = Math.min(capacity, credit + (at - creditAt) * share);
    creditAt = at;
    const available = credit - Math.min(capacity, busy * at - sinceSum) + (personal ? reserve : 0);
    return available > 0 ? undefined : Math.max(1, Math.ceil(-available / share / 1000));
  };

  /** Holds a place for `res` until it closes, then passes the places free to the first waiters, or frees it. */
  const hold = (res: ServerResponse, personal: boolean) => {
    busy++;
    const since = now();
    sinceSum += since;
    res.once("close", () => {
      sinceSum -= since;
      if (share !== undefined) {
        refusal(false);
        // One request counts at most a full bucket, so a single slow one (a route Next loads on its first request,
        // a slow database) empties the pool's share but puts it in no debt; and the pool is never more than one
        // bucket (personal requests: one bucket and the reserve) in debt, so slow requests together close it for
        // a bounded while.
        const floor = personal ? -(capacity + reserve) : -capacity;
        credit = Math.max(Math.min(credit, floor), credit - Math.min(now() - since, capacity));
      }
      busy--;
      handOn();
    });
  };

  /** Gives the free places to the waiters in arrival order while the share lasts; once it is used up, refuses them. */
  const handOn = () => {
    while (busy < concurrency) {
      const next = waiting.shift();
      if (!next) return;
      next.res.off("close", next.gone);
      next.cancelTimer();
      if (isClosed(next.res)) {
        next.admitted("gone");
        continue;
      }
      const refused = refusal(next.personal);
      if (refused !== undefined) {
        next.admitted({ status: 429, retryAfter: refused });
        continue;
      }
      hold(next.res, next.personal);
      next.admitted(true);
    }
  };

  return {
    admit(res, personal = false) {
      if (isClosed(res)) return "gone";
      const refused = refusal(personal);
      if (refused !== undefined) return { status: 429, retryAfter: refused };
      if (busy < concurrency) {
        hold(res, personal);
        return true;
      }
      if (waiting.length >= queue) return { status: 429, retryAfter: 1 };
      return new Promise<Admission>((admitted) => {
        const leave = (value: Admission) => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          res.off("close", waiter.gone);
          waiter.cancelTimer();
          admitted(value);
        };
        const waiter: Waiter = {
          res,
          personal,
          admitted,
          gone: () => leave("gone"),
          cancelTimer: () => {},
        };
        waiter.cancelTimer = setTimer(maxWaitMs, () => leave(timedOut));
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
