/**
 * Renders the one error model as HTTP: `AppError` → JSON Error body (docs/contract.md section 1) with its
 * headers. Hono's own refusals (413, 415, bad JSON) become their codes; everything else goes through core's
 * error translator (an unreachable database: 503 with Retry-After; anything unknown: 500 `internal_error`,
 * logged with the request id, nothing internal sent). Also builds the app's JSON answers (`jsonResponse`), so that
 * every answer, error or not, carries the request's common headers in one plain object.
 */
import { AppError } from "@petstore/contracts";
import { translateError } from "@petstore/core/errors";
import type { Context, TypedResponse } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
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

function respond(
  c: Context<RestEnv>,
  status: number,
  body: string,
  headers?: Record<string, string>,
): Response {
  // Object.assign, not `{ ...headers, ...common }`: on Node 20 a second spread into the new object takes V8's
  // slow path, ~5 µs for these headers, 9% of the CPU of a 401 under load (issue 7, docs/architecture.md).
  const merged = Object.assign({}, headers, c.get("responseHeaders"));
  const response = new Response(body, { status, headers: merged });
  c.set("answer", response);
  return response;
}

/**
 * The JSON response of an operation: `data` serialised, `status`, its own `headers` and the request's common
 * ones (`responseHeaders`, which win, as they did when middleware set them afterwards). The headers stay a
 * plain object: @hono/node-server writes it as it is, with no `Headers` object built and sorted (issue 7).
 */
export function jsonResponse<T, S extends ContentfulStatusCode>(
  c: Context<RestEnv>,
  status: S,
  data: T,
  headers?: Record<string, string>,
): Response & TypedResponse<T, S, "json"> {
  return serializedJsonResponse<T, S>(c, status, JSON.stringify(data), headers);
}

/** As `jsonResponse`, for a body already serialised (`json`: the JSON text of a `T`). */
export function serializedJsonResponse<T, S extends ContentfulStatusCode>(
  c: Context<RestEnv>,
  status: S,
  json: string,
  headers?: Record<string, string>,
): Response & TypedResponse<T, S, "json"> {
  return respond(c, status, json, headers) as Response & TypedResponse<T, S, "json">;
}

/** Whether the request's answer `c.res` was built here, with the common headers (else the pipeline adds them). */
export const hasCommonHeaders = (c: Context<RestEnv>) => c.res === c.get("answer");

/** The JSON Error response for `error`; with the request's context `c`, with its common headers too. */
export function errorResponse(error: AppError, c?: Context<RestEnv>): Response {
  const body = JSON.stringify(error.toBody());
  if (c?.get("responseHeaders")) return respond(c, error.status, body, error.headers);
  return new Response(body, {
    status: error.status,
    headers: { "Content-Type": JSON_CONTENT_TYPE, ...error.headers },
  });
}
