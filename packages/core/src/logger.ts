/**
 * Structured JSON logging (pino). One logger per process; secrets never reach it (see `redactPaths`).
 * By default lines go to stdout through pino's asynchronous destination (sonic-boom, `sync: false`): the
 * request path only appends to a buffer, written in the background (issue 7: synchronous stdout writes were
 * 15-19% of the API's CPU). pino flushes that buffer synchronously when the process exits, whether by
 * `process.exit` on SIGTERM/SIGINT or on a crash (uncaught exception), so lines are never lost on shutdown
 * (pino registers that flush on the `exit` event; test/logger.test.ts checks all three endings).
 */
import { type Logger, pino } from "pino";

const redactPaths = ["req.headers.authorization", "authorization", "key", "secret", "password", "token"];

/** Creates the process logger at `level` writing JSON lines to stdout (or to `destination`). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: undefined, redact: { paths: redactPaths, censor: "[redacted]" } },
    (destination as never) ?? (level === "silent" ? undefined : pino.destination({ dest: 1, sync: false })),
  );
}

export type { Logger };
