/**
 * Structured JSON logging (pino). One logger per process; secrets never reach it (see `redactPaths`).
 */
import { type Logger, pino } from "pino";

const redactPaths = ["req.headers.authorization", "authorization", "key", "secret", "password", "token"];

/** Creates the process logger at `level` writing JSON lines to stdout (or to `destination`). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: undefined, redact: { paths: redactPaths, censor: "[redacted]" } },
    destination as never,
  );
}

export type { Logger };
