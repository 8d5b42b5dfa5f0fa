/**
 * Renders the one error model as HTTP: `AppError` → JSON Error body (docs/contract.md section 1) with its
 * headers. Hono's own refusals (413, 415, bad JSON) become their codes; everything else goes through core's
 * error translator (an unreachable database: 503 with Retry-After; anything unknown: 500 `internal_error`,
 * logged with the request id, nothing internal sent).
 */
import { AppError } from "@petstore/contracts";
import { translateError } from "@petstore/core/errors";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { RestEnv } from "./env.ts";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

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
  const requestId = c.get("requestId");
  const { error: appError, kind } = translateError(error, { requestId });
  if (kind === "unavailable") log({ err: error, requestId }, "database unavailable");
  if (kind === "unexpected") log({ err: error, requestId }, "unhandled error");
  return appError;
}

/** The JSON Error response for `error`. */
export function errorResponse(error: AppError): Response {
  return new Response(JSON.stringify(error.toBody()), {
    status: error.status,
    headers: { "Content-Type": JSON_CONTENT_TYPE, ...error.headers },
  });
}
