/**
 * The clean stop of an instance on SIGTERM or SIGINT (docs/operations.md "Deploying"), so that a rolling restart
 * behind a load balancer loses no request:
 *
 * 1. At once: /readyz answers 503 (`draining()`), and every answer from now on closes its connection, so clients
 *    and the load balancer move to other instances; the instance keeps serving for `drainMs` meanwhile.
 * 2. Then the listener closes (no new connections), idle connections are closed, and the requests in progress
 *    get up to `timeoutMs` to finish.
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
import type { Connections } from "./connections.ts";

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
  /** Releases the idempotency reservations of requests that were cut (core's `idempotency.releaseInFlight`). */
  releaseCut: () => Promise<unknown>;
  /** Closes the runtime and writes out the logs. */
  close: () => Promise<void>;
  log: (event: string, fields?: object) => void;
  /** What ends the process (default `process.exit`). */
  exit?: (code: number) => void;
  /** Where the stop signals come from (default `process`). */
  signals?: Pick<NodeJS.EventEmitter, "on">;
}

export function createLifecycle(options: LifecycleOptions): Lifecycle {
  const { server, connections, log } = options;
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

  async function stop(): Promise<void> {
    draining = true;
    connections.closeAfterAnswers();
    log("draining", { drainMs: options.drainMs, inProgress: connections.inProgress });
    if (server.listening) await wait(options.drainMs);
    server.close();
    server.closeIdleConnections();
    const settled =
      connections.inProgress === 0 ||
      (!hurried &&
        (await Promise.race([
          connections.settled(options.timeoutMs),
          new Promise<false>((resolve) => {
            hurry = () => resolve(false);
          }),
        ])));
    if (!settled) {
      log("cutting requests still in progress", { inProgress: connections.inProgress });
      server.closeAllConnections();
      await options.releaseCut().catch((error: unknown) => log("could not release reservations", { error }));
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
