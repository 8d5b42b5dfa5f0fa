/**
 * The clean stop of an instance on SIGTERM or SIGINT (docs/operations.md "Deploying"), so that a rolling restart
 * behind a load balancer loses no request:
 *
 * 1. At once: /readyz answers 503 (`draining()`), and every answer from now on closes its connection, so clients
 *    and the load balancer move to other instances; the instance keeps serving for `drainMs` meanwhile.
 * 2. Then the listener closes (no new connections; the connections the kernel queued are taken first:
 *    `emptyAcceptQueue`; with a socket the supervisor passed, only this process's descriptor closes, and what is
 *    queued waits for the next instance on the same socket), connections idle after an answer are closed (FIN), those that
 *    have not delivered their first request get up to `FIRST_REQUEST_MS` for it (answered, with
 *    `Connection: close`), and the requests in progress get up to `timeoutMs` to finish.
 * 3. Requests still running then are cut; the idempotency reservations of this process that never completed
 *    are released, so a retry of a cut create runs again instead of getting 409 for a minute.
 * 4. `close()` runs (the runtime flushes usage counts and closes the database and the limiter; the spans not yet
 *    exported are, while tracing is on; the log lines still queued are written out), and the process exits with 0.
 * SIGTERM and SIGINT repeated during a stop are the same stop: a supervisor that signals the whole process group
 * (systemd's KillMode=control-group, supervisord's killasgroup, `kill -- -PGID`, Ctrl-C under `npm run`) makes
 * node get the signal twice, from the sender and forwarded by npm. SIGQUIT is the fast path: it skips the waits
 * (of a stop under way, or of one it starts); npm does not forward it, so it reaches node once.
 */
import type { Server } from "node:http";
import net from "node:net";
import type { Connections } from "./connections.ts";

/**
 * How long a connection accepted before the end of the drain may take to deliver its first request (ms): a
 * client sends it right after connecting, so this covers a loaded machine, and a connection opened and never used
 * (a preconnect) holds the stop no longer.
 */
export const FIRST_REQUEST_MS = 1000;

/** How long the closing listener waits for a connection to close right after, before it closes anyway (ms). */
export const ACCEPT_QUEUE_MS = 50;

export interface Lifecycle {
  /** True from the first stop signal on. */
  draining(): boolean;
  /** Stops as above; resolves when `close` has run (the process then exits). */
  stop(): Promise<void>;
}

export interface LifecycleOptions {
  server: Server;
  connections: Connections;
  drainMs: number;
  timeoutMs: number;
  /** How long a connection may take to deliver its first request once the drain ended (default `FIRST_REQUEST_MS`). */
  firstRequestMs?: number;
  /** Releases the idempotency reservations of requests that were cut (core's `idempotency.releaseInFlight`). */
  releaseCut: () => Promise<unknown>;
  /** Closes the runtime and writes out the logs. */
  close: () => Promise<void>;
  log: (event: string, fields?: object) => void;
  /** What ends the process (default `process.exit`). */
  exit?: (code: number) => void;
  /**
   * True when the listening socket outlives the process (a supervisor passed it, socket activation): the stop then
   * leaves the connections the kernel queued to the next instance instead of taking them.
   */
  keepsQueuedConnections?: boolean;
  /** Where the stop signals come from (default `process`). */
  signals?: Pick<NodeJS.EventEmitter, "on">;
}

export function createLifecycle(options: LifecycleOptions): Lifecycle {
  const { server, connections, log } = options;
  server.on("connection", connections.track);
  let draining = false;
  let stopping: Promise<void> | undefined;
  /** True from SIGQUIT on: no more waiting. */
  let hurried = false;
  /** Ends the wait under way, if any. */
  let hurry: (() => void) | undefined;

  /** Waits `ms`, or less when SIGQUIT arrives. */
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (hurried) return resolve();
      const timer = setTimeout(resolve, ms);
      hurry = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /**
   * Empties the kernel's accept queue before the listener closes: closing a listening socket resets the
   * connections whose handshake the kernel completed and the process has not accepted yet, and a client that
   * ignores /readyz has sent its request on them. listen(2) again with a backlog of 0 makes the kernel drop new
   * SYNs while a connection waits in its queue (their clients send the SYN again after 1 s and then find the port
   * refused, before sending anything); Node takes what is queued in its next poll, and the listener
   * then closes right after Node takes a connection (the queue is empty then), or after `ACCEPT_QUEUE_MS` without
   * one. What remains is a handshake completed in the instant before the close, or, with SYN cookies, one whose
   * last step the full queue dropped: only clients that ignore /readyz open those, and they can still meet resets.
   */
  async function emptyAcceptQueue(): Promise<void> {
    // node:http exposes no backlog change: its libuv handle's listen() runs listen(2) again.
    (server as unknown as { _handle?: { listen?(backlog: number): number } })._handle?.listen?.(0);
    // One poll phase: Node's accept loop takes everything queued before the backlog shrank.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        server.off("connection", onConnection);
        resolve();
      };
      // At once, before libuv goes on: the listener closes in the microtask checkpoint after the accept.
      const onConnection = done;
      const timer = setTimeout(done, ACCEPT_QUEUE_MS);
      server.once("connection", onConnection);
    });
  }

  async function stop(): Promise<void> {
    draining = true;
    connections.closeAfterAnswers();
    log("draining", { drainMs: options.drainMs, inProgress: connections.inProgress });
    if (server.listening) await wait(options.drainMs);
    // The listener alone: http.Server's close() also closes the idle connections (connections.closeIdle does,
    // knowing which were used) and stops the checks of the request timeouts, which still bound what is open.
    if (server.listening && !options.keepsQueuedConnections) await emptyAcceptQueue();
    net.Server.prototype.close.call(server);
    connections.closeIdle(Math.min(options.firstRequestMs ?? FIRST_REQUEST_MS, options.timeoutMs));
    const settled =
      !hurried &&
      (await Promise.race([
        connections.settled(options.timeoutMs),
        new Promise<false>((resolve) => {
          hurry = () => resolve(false);
        }),
      ]));
    if (!settled) {
      server.closeAllConnections();
      if (connections.inProgress > 0) {
        log("cutting requests still in progress", { inProgress: connections.inProgress });
        await options
          .releaseCut()
          .catch((error: unknown) => log("could not release reservations", { error }));
      }
    }
    log("stopped");
    await options.close();
    (options.exit ?? process.exit)(0);
  }

  const onStop = (signal: string) => {
    if (stopping) log("already stopping", { signal });
    else stopping = stop();
  };
  const onQuit = () => {
    hurried = true;
    hurry?.();
    stopping ??= stop();
  };
  const signals = options.signals ?? process;
  signals.on("SIGTERM", () => onStop("SIGTERM"));
  signals.on("SIGINT", () => onStop("SIGINT"));
  signals.on("SIGQUIT", onQuit);

  return {
    draining: () => draining,
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}
