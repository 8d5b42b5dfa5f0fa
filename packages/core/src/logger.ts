/**
 * Structured JSON logging (pino). One logger per process; secrets never reach it (see `redactPaths`).
 * By default lines go to stdout through pino's asynchronous destination (sonic-boom, `sync: false`): the
 * request path only appends to a buffer, written in the background (a synchronous write per request would block
 * the event loop on stdout) once it holds `BATCH_BYTES`, or at the latest `FLUSH_MS` after a line (a write per
 * line costs a hop to libuv's thread pool and back per request: docs/performance.md "Where the time goes"). On
 * `process.exit` pino writes the buffer out synchronously; a write already handed to the background can still be
 * cut off then, so a clean shutdown (server.ts on SIGTERM) and a crash (an uncaught exception) call `endLogs()`
 * first, which waits until every accepted line is written (test/logger.test.ts checks exit, SIGTERM and crash).
 */
import os from "node:os";
import { type Logger, pino } from "pino";

const redactPaths = ["req.headers.authorization", "authorization", "key", "secret", "password", "token"];

// The asynchronous destinations to end on shutdown. server.ts opens the process's logger (with its runtime) and
// ends it; Next's bundle uses that runtime's logger and creates none of its own.
type Destination = ReturnType<typeof pino.destination>;
const opened = new Set<Destination>();
const destinations = (): Set<Destination> => opened;

/** Buffered bytes that make a write of stdout's lines; a quieter process writes them every `FLUSH_MS`. */
const BATCH_BYTES = 4096;
const FLUSH_MS = 200;

/** `pid`, `hostname` and `instance` (INSTANCE_ID), so that several instances' lines can be told apart. */
function instanceFields(instanceId: string | undefined): Record<string, unknown> {
  return { pid: process.pid, hostname: os.hostname(), ...(instanceId ? { instance: instanceId } : {}) };
}

/** Creates the process logger at `level` writing JSON lines to stdout (or to `destination`), with `instanceFields`. */
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
  // sonic-boom's own timer: it stops before the destination closes, so no flush meets a closed destination (which
  // throws) while the close's fsync waits for libuv's thread pool.
  const stdout = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES, periodicFlush: FLUSH_MS });
  destinations().add(stdout);
  if (destinations().size === 1) process.once("uncaughtException", crash);
  return pino(options, stdout);
}

/**
 * What Node does with an uncaught exception (the stack on stderr, exit code 1), once every accepted line is
 * written: exiting at once would cut off a write already handed to the background.
 */
function crash(error: unknown): void {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  void endLogs().finally(() => process.exit(1));
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
