/**
 * Renders the one error model as HTTP: `AppError` → JSON Error body (PRODUCT.md section 1) with its headers.
 * Unknown errors become 500 `internal_error` (logged with the request id, nothing internal sent), and a
 * database that cannot be reached becomes 503 `service_unavailable` with Retry-After.
 */
import { AppError } from "@petstore/contracts";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { RestEnv } from "./env.ts";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

const CONNECTION_ERROR =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|Connection terminated|connect(ion)? timeout|terminating connection|Can't reach database|database system is (starting up|shutting down)|too many clients|PGlite is closed/i;
const CONNECTION_CODES = new Set([
  "P1001",
  "P1002",
  "P1008",
  "P1017",
  "P2024",
  "57P01",
  "57P03",
  "53300",
  "08006",
  "08001",
  "08003",
]);

/** True when `error` (or its cause chain) says the database could not be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 6; depth++) {
    const err = e as {
      name?: string;
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      kind?: unknown;
      originalCode?: unknown;
    };
    if (err.name === "PrismaClientInitializationError") return true;
    if (typeof err.code === "string" && CONNECTION_CODES.has(err.code)) return true;
    if (typeof err.originalCode === "string" && CONNECTION_CODES.has(err.originalCode)) return true;
    if (err.kind === "DatabaseNotReachable" || err.kind === "ConnectionClosed") return true;
    if (typeof err.message === "string" && CONNECTION_ERROR.test(err.message)) return true;
    e = err.cause;
  }
  return false;
}

/** Maps anything thrown to an AppError (logging the unexpected ones). */
export function toAppError(
  error: unknown,
  c: Context<RestEnv>,
  log: (obj: object, msg: string) => void,
): AppError {
  if (AppError.is(error)) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413)
      return new AppError("payload_too_large", "The request body is larger than 16 KiB.");
    if (error.status === 415)
      return new AppError("unsupported_media_type", "Send the body as application/json.");
    if (error.status === 400) return new AppError("invalid_request", "The request body is not valid JSON.");
  }
  if (isDatabaseUnavailable(error)) {
    log({ err: error, requestId: c.get("requestId") }, "database unavailable");
    return new AppError(
      "service_unavailable",
      "The service is temporarily unavailable; retry shortly.",
      undefined,
      {
        "Retry-After": "5",
      },
    );
  }
  log({ err: error, requestId: c.get("requestId") }, "unhandled error");
  return new AppError("internal_error", `An unexpected error occurred (request id ${c.get("requestId")}).`);
}

/** The JSON Error response for `error`. */
export function errorResponse(error: AppError): Response {
  return new Response(JSON.stringify(error.toBody()), {
    status: error.status,
    headers: { "Content-Type": JSON_CONTENT_TYPE, ...error.headers },
  });
}
