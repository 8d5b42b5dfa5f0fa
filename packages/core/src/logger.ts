/**
 * Structured JSON logging (pino). One logger per process; secrets never reach it (see `redactPaths`).
 * By default lines go to stdout through pino's asynchronous destination (sonic-boom, `sync: false`): the
 * request path only appends to a buffer, written in the background (a synchronous write per request would block
 * the event loop on stdout). On a crash (uncaught exception) and on `process.exit`, pino writes the buffer out
 * synchronously (its `exit` handler). A write already handed to the background at that instant can still be
 * cut off, so a clean shutdown calls `endLogs()` first, which waits until every accepted line is written
 * (server.ts on SIGTERM/SIGINT; test/logger.test.ts checks exit, SIGTERM and crash).
 */
import os from "node:os";
import { type Logger, pino } from "pino";

const redactPaths = ["req.headers.authorization", "authorization", "key", "secret", "password", "token"];

// The asynchronous destinations to end on shutdown. server.ts opens the process's logger (with its runtime) and
// ends it; Next's bundle uses that runtime's logger and creates none of its own.
type Destination = ReturnType<typeof pino.destination>;
const opened = new Set<Destination>();
const destinations = (): Set<Destination> => opened;

/**
 * The fields every line of this process carries, so that the lines of several instances can be told apart
 * (docs/operations.md "Logs"): `pid`, `hostname`, and `instance` (INSTANCE_ID) when the configuration names one.
 */
function instanceFields(instanceId: string | undefined): Record<string, unknown> {
  return { pid: process.pid, hostname: os.hostname(), ...(instanceId ? { instance: instanceId } : {}) };
}

/**
 * Creates the process logger at `level` writing JSON lines to stdout (or to `destination`); every line carries
 * `pid`, `hostname` and, with `instanceId` (packages/config's `instanceId`), `instance`.
 */
export function createLogger(
  level: string,
  destination?: NodeJS.WritableStream,
  instanceId?: string,
): Logger {
  const options = {
    level,
    base: instanceFields(instanceId),
    redact: { paths: redactPaths, censor: "[redacted]" },
  };
  if (destination || level === "silent") return pino(options, destination);
  const stdout = pino.destination({ dest: 1, sync: false });
  destinations().add(stdout);
  return pino(options, stdout);
}

/**
 * Writes out every line the process's loggers accepted and closes their stdout destinations; later lines are
 * dropped. Call once, right before the process exits. Resolves after at most `timeoutMs` (default 2 000)
 * even when stdout does not drain.
 */
export async function endLogs(timeoutMs = 2_000): Promise<void> {
  const ending = [...destinations()].map(
    (d) =>
      new Promise<void>((resolve) => {
        d.once("close", () => resolve());
        d.once("error", () => resolve());
        d.end();
      }),
  );
  destinations().clear();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(ending),
    new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

export type { Logger };
