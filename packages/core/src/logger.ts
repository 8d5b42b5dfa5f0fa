/**
 * Structured JSON logging (pino). One logger per process; secrets never reach it (see `redactPaths`).
 * By default lines go to stdout through pino's asynchronous destination (sonic-boom, `sync: false`): the
 * request path only appends to a buffer, written in the background (a synchronous write per request would block
 * the event loop on stdout) once it holds `BATCH_BYTES`, or at the latest `FLUSH_MS` after a line (a write per
 * line costs a hop to libuv's thread pool and back per request: docs/performance.md "Where the time goes"). On a crash (uncaught exception) and on `process.exit`, pino writes the buffer out
 * synchronously (its `exit` handler). A write already handed to the background at that instant can still be
 * cut off, so a clean shutdown calls `endLogs()` first, which waits until every accepted line is written
 * (server.ts on SIGTERM/SIGINT; test/logger.test.ts checks exit, SIGTERM and crash).
 */
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

/** Creates the process logger at `level` writing JSON lines to stdout (or to `destination`). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  if (destination || level === "silent")
    return pino(
      { level, base: undefined, redact: { paths: redactPaths, censor: "[redacted]" } },
      destination,
    );
  const stdout = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  const flush = setInterval(() => stdout.flush(), FLUSH_MS);
  flush.unref();
  stdout.once("close", () => clearInterval(flush));
  destinations().add(stdout);
  return pino({ level, base: undefined, redact: { paths: redactPaths, censor: "[redacted]" } }, stdout);
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
