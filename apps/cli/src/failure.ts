/**
 * How the command reports a failure (docs/contract.md section 5): exit code 2 for bad arguments or a bad
 * environment, 1 for anything else. With `--json` it prints the API's Error body (docs/contract.md section 1
 * "Error body": `{code, message, status}` plus `details: [{path, message}]`) as one line on stdout, the same
 * field names `@petstore/client` errors carry; otherwise a `petstore: …` message on stderr. Other failures go
 * through core's error translator, as the API's do: an unreachable database is `service_unavailable` (503).
 */
import { ConfigError } from "@petstore/config";
import { AppError, type ErrorBody } from "@petstore/contracts";
import { translateError } from "@petstore/core/errors";
import { type CliIo, REPOSITORY_COMMAND } from "./io.ts";
import { UsageError, usage } from "./usage.ts";

export interface Failure {
  exitCode: 1 | 2;
  /** The Error body printed in --json mode. */
  body: ErrorBody;
  /** The text printed on stderr otherwise (and, for an unexpected error, in --json mode too: its stack). */
  text: string;
}

/** The report of `error`, whatever was thrown; `command` names the command in the usage text. */
export function failureOf(error: unknown, command: string = REPOSITORY_COMMAND): Failure {
  if (error instanceof UsageError) {
    const code = error.details ? "validation_failed" : "invalid_request";
    return {
      exitCode: 2,
      body: new AppError(code, error.message, error.details).toBody(),
      text: `petstore: ${error.message}\n\n${usage(command)}`,
    };
  }
  if (error instanceof ConfigError) {
    return {
      exitCode: 2,
      body: new AppError("validation_failed", error.message, [
        { path: error.variable, message: error.message },
      ]).toBody(),
      text: `petstore: ${error.message}\n`,
    };
  }
  const { error: answer, kind } = translateError(error);
  return {
    exitCode: 1,
    body: answer.toBody(),
    text:
      kind === "unexpected"
        ? `petstore: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
        : kind === "unavailable"
          ? `petstore: ${answer.message} (${String((error as Error)?.message ?? error).split("\n")[0]})\n`
          : `petstore: ${answer.message}\n`,
  };
}

/** Prints the report of `error` on `io` (as JSON when `json`) and returns the exit code. */
export function reportFailure(
  error: unknown,
  json: boolean,
  io: Pick<CliIo, "stdout" | "stderr" | "command">,
): 1 | 2 {
  const failure = failureOf(error, io.command);
  if (!json) {
    io.stderr(failure.text);
  } else {
    io.stdout(`${JSON.stringify(failure.body)}\n`);
    if (failure.body.code === "internal_error" || failure.body.code === "service_unavailable")
      io.stderr(failure.text);
  }
  return failure.exitCode;
}
