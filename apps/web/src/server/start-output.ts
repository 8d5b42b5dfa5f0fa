/**
 * Where the process's start-up lines go (docs/operations.md "Running it" and "Logs"): text for a person on a
 * terminal or in staging, JSON log lines (the line as `msg`, details as fields) when PETSTORE_ENV=production and
 * stdout is no terminal, so that a production stdout holds JSON only. JSON start-up lines are written at info
 * whatever LOG_LEVEL says (except `silent`), as the text ones are: that the process started, and where it
 * listens, belongs in every log.
 */
import type { Config } from "@petstore/config";
import type { Logger } from "@petstore/core";

export interface StartOutput {
  /** True when lines are printed as text. */
  human: boolean;
  /** Prints `message` as a line of text, or logs it at info with `fields`. */
  line(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The start-up output for `config` (its PETSTORE_ENV and LOG_LEVEL) over `logger`; `tty` whether stdout is a
 * terminal.
 */
export function startOutput(
  config: Pick<Config, "environment" | "logLevel">,
  logger: Logger,
  tty: boolean = process.stdout.isTTY === true,
): StartOutput {
  if (tty || config.environment !== "production")
    return { human: true, line: (message) => process.stdout.write(`${message}\n`) };
  const log = config.logLevel === "silent" ? logger : logger.child({}, { level: "info" });
  return { human: false, line: (message, fields = {}) => log.info(fields, message) };
}
