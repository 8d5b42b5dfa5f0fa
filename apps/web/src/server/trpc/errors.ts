/**
 * Where errors become tRPC errors, through core's error translator (docs/contract.md section 1 "Error
 * body"): `toTrpcError` (used by `mapAppErrors`, a middleware on every procedure, by the context factory
 * and by the formatter) turns a domain error, an unreachable database (503 SERVICE_UNAVAILABLE with
 * Retry-After) or an unexpected error (500) into a `TRPCError` with the matching code, keeping the
 * translated AppError as its cause; `formatError` (the errorFormatter) adds `appCode`, per-field `details`
 * and `retryAfterSeconds` to the error shape, words input-validation failures exactly like the REST API,
 * and never lets an unexpected error's text (SQL, internal names) reach the browser. `trpcErrorResponse`
 * gives refusals made before tRPC runs (cross-site, oversized body) the same JSON shape.
 */
import {
  AppError,
  type ErrorCode,
  type ErrorDetail,
  type Problem,
  validationError,
} from "@petstore/contracts";
import { translateError } from "@petstore/core/errors";
import { type TRPCDefaultErrorShape, TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";
import { jsonHeaders } from "../http/error-answer";

const TRPC_CODE_BY_APP_CODE = {
  unauthorized: "UNAUTHORIZED",
  insufficient_scope: "FORBIDDEN",
  invalid_request: "BAD_REQUEST",
  validation_failed: "BAD_REQUEST",
  not_found: "NOT_FOUND",
  method_not_allowed: "METHOD_NOT_SUPPORTED",
  request_timeout: "TIMEOUT",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  header_too_large: "BAD_REQUEST",
  conflict: "CONFLICT",
  precondition_failed: "PRECONDITION_FAILED",
  idempotency_key_in_use: "CONFLICT",
  idempotency_key_reused: "UNPROCESSABLE_CONTENT",
  rate_limited: "TOO_MANY_REQUESTS",
  quota_exceeded: "TOO_MANY_REQUESTS",
  key_banned: "TOO_MANY_REQUESTS",
  gone: "NOT_FOUND",
  not_implemented: "NOT_IMPLEMENTED",
  service_unavailable: "SERVICE_UNAVAILABLE",
  internal_error: "INTERNAL_SERVER_ERROR",
  forbidden: "FORBIDDEN",
} as const satisfies Record<ErrorCode, TRPC_ERROR_CODE_KEY>;

/**
 * The app code of tRPC's own refusals (no domain error behind them): an unknown procedure, a body that is not
 * JSON, a batch too long, a caller not signed in, ... so that `appCode` is never null (docs/contract.md section 1).
 */
const APP_CODE_BY_TRPC_CODE: Record<TRPC_ERROR_CODE_KEY, ErrorCode> = {
  PARSE_ERROR: "invalid_request",
  BAD_REQUEST: "invalid_request",
  UNAUTHORIZED: "unauthorized",
  PAYMENT_REQUIRED: "forbidden",
  FORBIDDEN: "forbidden",
  NOT_FOUND: "not_found",
  METHOD_NOT_SUPPORTED: "method_not_allowed",
  TIMEOUT: "request_timeout",
  CONFLICT: "conflict",
  PRECONDITION_FAILED: "precondition_failed",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
  UNPROCESSABLE_CONTENT: "validation_failed",
  PRECONDITION_REQUIRED: "invalid_request",
  TOO_MANY_REQUESTS: "rate_limited",
  CLIENT_CLOSED_REQUEST: "invalid_request",
  INTERNAL_SERVER_ERROR: "internal_error",
  NOT_IMPLEMENTED: "not_implemented",
  BAD_GATEWAY: "service_unavailable",
  SERVICE_UNAVAILABLE: "service_unavailable",
  GATEWAY_TIMEOUT: "service_unavailable",
};

/** Extra fields of every error shape's `data`. */
export interface AppErrorData {
  /** The error code of the closed set (`validation_failed`, `conflict`, `unauthorized`, ...). */
  appCode: ErrorCode;
  /** Per-field problems, same paths and words as the REST API's `details`. */
  details: ErrorDetail[] | null;
  /** Whole seconds until a throttled call may be retried (the response's Retry-After), else null. */
  retryAfterSeconds: number | null;
}

/** The domain error behind a tRPC error, if any. */
export function appErrorOf(error: { cause?: unknown }): AppError | undefined {
  return AppError.is(error.cause) ? error.cause : undefined;
}

/*
 * ZodError is checked by name as well as by class: an error made by another copy of zod (a bundle that carries
 * its own) fails `instanceof` against this one's class. AppError.is handles that itself.
 */
function isZodError(error: unknown): error is ZodError {
  return (
    error instanceof ZodError ||
    (error instanceof Error && error.name === "ZodError" && Array.isArray((error as ZodError).issues))
  );
}

/**
 * The TRPCError for anything thrown. tRPC's own refusals (UNAUTHORIZED, input validation, ...) pass
 * unchanged; a wrapped cause goes through core's `translateError`.
 * @returns a TRPCError whose cause is the AppError answered with (its `cause`, the original, for logs).
 */
export function toTrpcError(thrown: unknown): TRPCError {
  const error =
    thrown instanceof TRPCError ? thrown : new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: thrown });
  const cause = error.cause;
  if (!AppError.is(cause) && (error.code !== "INTERNAL_SERVER_ERROR" || !cause || isZodError(cause)))
    return error;
  const { error: appError } = translateError(cause);
  return new TRPCError({
    code: TRPC_CODE_BY_APP_CODE[appError.code],
    message: appError.message,
    cause: appError,
  });
}

/** Middleware body: runs the rest of the chain and maps a domain failure. */
export async function mapAppErrors<T extends { ok: boolean }>(next: () => Promise<T>): Promise<T> {
  const result = await next();
  if (!result.ok) {
    const { error } = result as unknown as { error: TRPCError };
    const mapped = toTrpcError(error);
    if (mapped !== error) throw mapped;
  }
  return result;
}

/** tRPC's own shape, so that `AppRouter` (and `TRPCClientError<AppRouter>["data"]`) carries `AppErrorData`. */
type Shape = TRPCDefaultErrorShape;

/** The errorFormatter: adds `appCode`/`details`/`retryAfterSeconds`, rewords input errors, hides unexpected ones. */
export function formatError({ shape, error: thrown }: { shape: Shape; error: TRPCError }): Shape & {
  data: Shape["data"] & AppErrorData;
} {
  const { stack: _stack, ...data } = shape.data;
  const error = toTrpcError(thrown);
  const cause = error.cause;
  if (AppError.is(cause)) {
    const retryAfter = Number(cause.headers?.["Retry-After"]);
    return {
      ...shape,
      message: cause.message,
      code: TRPC_ERROR_CODES_BY_KEY[error.code],
      data: {
        ...data,
        code: error.code,
        httpStatus: getHTTPStatusCodeFromError(error),
        appCode: cause.code,
        details: cause.details ?? null,
        retryAfterSeconds: retryAfter > 0 ? retryAfter : null,
      },
    };
  }
  if (isZodError(cause)) {
    const appError = validationError(cause);
    return {
      ...shape,
      message: appError.message,
      data: {
        ...data,
        appCode: "validation_failed",
        details: appError.details ?? null,
        retryAfterSeconds: null,
      },
    };
  }
  return {
    ...shape,
    data: { ...data, appCode: APP_CODE_BY_TRPC_CODE[error.code], details: null, retryAfterSeconds: null },
  };
}

/**
 * A JSON response shaped like tRPC's own error answers (`{error: {message, code, data}}`), for requests
 * refused before tRPC runs, with the headers of every JSON error answer (http/error-answer.ts): request id,
 * no-store, nosniff, and the problem's own. Status from its code (403 forbidden, 413 payload_too_large, ...).
 * `call`: the one procedure the request called (tRPC names it in `data.path`), and whether as a batch of one
 * (`?batch=1`: an array of that one error, as tRPC answers it).
 */
export function trpcErrorResponse(
  problem: Problem,
  requestId: string,
  call?: { path: string; batch: boolean },
): Response {
  const error = new TRPCError({
    code: TRPC_CODE_BY_APP_CODE[problem.code],
    message: problem.message,
    cause: AppError.of(problem),
  });
  const httpStatus = getHTTPStatusCodeFromError(error);
  const shape = formatError({
    shape: {
      message: problem.message,
      code: TRPC_ERROR_CODES_BY_KEY[error.code],
      data: { code: error.code, httpStatus, ...(call ? { path: call.path } : {}) },
    },
    error,
  });
  return new Response(JSON.stringify(call?.batch ? [{ error: shape }] : { error: shape }), {
    status: httpStatus,
    headers: Object.assign({}, problem.headers, jsonHeaders(requestId)),
  });
}
