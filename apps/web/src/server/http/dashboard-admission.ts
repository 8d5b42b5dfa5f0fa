/**
 * How much of the process the dashboard may occupy (docs/operations.md "Roles", `DASHBOARD_CONCURRENCY`,
 * `DASHBOARD_QUEUE`): in the roles that serve the dashboard, its requests (pages, `/api/trpc`, `/docs`, sign-in;
 * not Next's static files) go through a pool of `concurrency` places with a queue of `queue`, one pool for
 * clients without a session this process knows and one for signed-in staff. A request beyond both is refused at
 * once (429, `Retry-After: 1`), never held: the per-address budgets bound each client, and this bounds them all
 * together, so that an anonymous flood from many addresses (each within its budget) cannot take the event loop
 * from `/v1`, which never waits here, nor lock staff out of the dashboard.
 */
import type { ServerResponse } from "node:http";

/** Admission of dashboard requests of one kind of client. */
export interface DashboardPool {
  /**
   * Admits the request answered by `res`: resolves to true once it holds a place (at once, or when one frees up
   * for it in arrival order), which it keeps until `res` closes; returns false at once when every place is taken
   * and the queue is full. A queued request whose connection closes (reset, or destroyed by a timeout) leaves the
   * queue, never resolved; one whose client only half-closed it is still served (Node keeps such a socket open
   * for the answer).
   */
  admit(res: ServerResponse): Promise<true> | false;
  /** Requests holding a place, and requests waiting for one. */
  readonly inProgress: number;
  readonly waiting: number;
}

/** A pool of `concurrency` (>= 1) places with at most `queue` (>= 0) requests waiting for one. */
export function createDashboardPool(concurrency: number, queue: number): DashboardPool {
  let busy = 0;
  interface Waiter {
    res: ServerResponse;
    admitted: (value: true) => void;
    gone: () => void;
  }
  const waiting: Waiter[] = [];

  /** Passes the place a closed response held to the first waiter (`busy` stays), else frees it. */
  const release = () => {
    const next = waiting.shift();
    if (!next) {
      busy--;
      return;
    }
    next.res.off("close", next.gone);
    hold(next.res);
    next.admitted(true);
  };
  // "close" fires once per response, when it is finished or its connection is lost.
  const hold = (res: ServerResponse) => res.once("close", release);

  return {
    admit(res) {
      if (busy < concurrency) {
        busy++;
        hold(res);
        return Promise.resolve(true);
      }
      if (waiting.length >= queue) return false;
      return new Promise<true>((admitted) => {
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
