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
import { AppError, type ErrorCode, type ErrorDetail, validationError } from "@petstore/contracts";
import { translateError } from "@petstore/core/errors";
import { type TRPCDefaultErrorShape, TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";

const TRPC_CODE_BY_APP_CODE = {
  unauthorized: "UNAUTHORIZED",
  invalid_request: "BAD_REQUEST",
  validation_failed: "BAD_REQUEST",
  not_found: "NOT_FOUND",
  method_not_allowed: "METHOD_NOT_SUPPORTED",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  idempotency_key_in_use: "CONFLICT",
  idempotency_key_reused: "UNPROCESSABLE_CONTENT",
  rate_limited: "TOO_MANY_REQUESTS",
  key_banned: "TOO_MANY_REQUESTS",
  gone: "NOT_FOUND",
  not_implemented: "NOT_IMPLEMENTED",
  service_unavailable: "SERVICE_UNAVAILABLE",
  internal_error: "INTERNAL_SERVER_ERROR",
  forbidden: "FORBIDDEN",
  conflict: "CONFLICT",
} as const satisfies Record<ErrorCode, TRPC_ERROR_CODE_KEY>;

/** Extra fields of every error shape's `data`. */
export interface AppErrorData {
  /** The domain error code (`validation_failed`, `conflict`, ...), when the error came from the domain. */
  appCode: ErrorCode | null;
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
 * ZodError is checked by name as well as by class: the runtime (and so the services that throw) may come
 * from another bundle of the same modules (Next's instrumentation opens it and shares it through
 * globalThis), where `instanceof` against this bundle's class is false. AppError.is handles that itself.
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
  return { ...shape, data: { ...data, appCode: null, details: null, retryAfterSeconds: null } };
}

/**
 * A JSON response shaped like tRPC's own error answers (`{error: {message, code, data}}`), for requests
 * refused before tRPC runs. Status from `appCode` (403 forbidden, 413 payload_too_large, ...).
 */
export function trpcErrorResponse(
  appCode: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const error = new TRPCError({
    code: TRPC_CODE_BY_APP_CODE[appCode],
    message,
    cause: new AppError(appCode, message, undefined, headers),
  });
  const httpStatus = getHTTPStatusCodeFromError(error);
  const shape = formatError({
    shape: { message, code: TRPC_ERROR_CODES_BY_KEY[error.code], data: { code: error.code, httpStatus } },
    error,
  });
  return Response.json(
    { error: shape },
    {
      status: httpStatus,
      headers: { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", ...headers },
    },
  );
}
