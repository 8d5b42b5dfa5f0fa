/**
 * The one error model (docs/contract.md section 1, "Error body"): a closed set of codes, each with its HTTP status.
 * Domain services throw `AppError`; the REST layer renders it as the Error body, tRPC maps it to a TRPCError.
 */
import { z } from "./zod.ts";

export const errorStatusByCode = {
  unauthorized: 401,
  invalid_request: 400,
  validation_failed: 400,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_in_use: 409,
  idempotency_key_reused: 422,
  rate_limited: 429,
  key_banned: 429,
  gone: 410,
  not_implemented: 501,
  service_unavailable: 503,
  internal_error: 500,
  // Dashboard-only codes (never sent by the REST API).
  forbidden: 403,
  conflict: 409,
} as const;

export type ErrorCode = keyof typeof errorStatusByCode;

/** Codes the public REST API may answer with (documented in the OpenAPI document). */
export const restErrorCodes = [
  "unauthorized",
  "invalid_request",
  "validation_failed",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "idempotency_key_in_use",
  "idempotency_key_reused",
  "rate_limited",
  "key_banned",
  "gone",
  "not_implemented",
  "service_unavailable",
  "internal_error",
] as const satisfies readonly ErrorCode[];

export const ErrorDetail = z.object({
  path: z.string().meta({ description: "Dotted path of the offending value, e.g. `categoryId`." }),
  message: z.string(),
});
export type ErrorDetail = z.infer<typeof ErrorDetail>;

export const ErrorBody = z
  .object({
    code: z.enum(restErrorCodes).meta({ description: "Machine-readable error code." }),
    message: z.string().meta({ description: "Human-readable description." }),
    status: z.int().meta({ description: "The HTTP status code." }),
    details: z.array(ErrorDetail).optional().meta({ description: "Per-field problems of a 400." }),
  })
  .meta({ id: "Error" });
export type ErrorBody = z.infer<typeof ErrorBody>;

const APP_ERROR_BRAND = Symbol.for("petstore.AppError");

/**
 * A failure a caller can act on. `status` follows from `code`; `details` lists per-field problems;
 * `headers` carries response headers that belong to the error (Retry-After, Allow, WWW-Authenticate).
 */
export class AppError extends Error {
  readonly status: number;
  readonly [APP_ERROR_BRAND] = true;

  /**
   * True for an AppError from any copy of this module. Next.js bundles instrumentation and each route
   * separately, so an error thrown by services opened in one bundle fails `instanceof` in another.
   */
  static is(error: unknown): error is AppError {
    return (
      typeof error === "object" &&
      error !== null &&
      (error as Record<symbol, unknown>)[APP_ERROR_BRAND] === true
    );
  }

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    // A client error (4xx) is an answer, not a fault: it is built without a stack trace. Capturing one was 7% of
    // the CPU of an anonymous 401 (profile, issue 7); a 5xx keeps its stack for the logs.
    const stackTraceLimit = Error.stackTraceLimit;
    if (typeof stackTraceLimit === "number" && errorStatusByCode[code] < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "AppError";
    this.status = errorStatusByCode[code];
  }

  /** The Error body of docs/contract.md section 1. */
  toBody(): ErrorBody {
    const body: ErrorBody = {
      code: this.code as ErrorBody["code"],
      message: this.message,
      status: this.status,
    };
    if (this.details?.length) body.details = this.details;
    return body;
  }
}

/** Converts zod issues to `details` entries (`path` dotted, `message` as zod words it). */
export function detailsFromZod(error: z.ZodError, prefix?: string): ErrorDetail[] {
  return error.issues.map((issue) => {
    const parts = [prefix, ...issue.path.map(String)].filter((p): p is string => Boolean(p));
    if (issue.code === "unrecognized_keys") {
      return {
        path: [...parts, ...issue.keys].join(".") || "body",
        message: `unknown property: ${issue.keys.join(", ")}`,
      };
    }
    return { path: parts.join(".") || prefix || "body", message: issue.message };
  });
}

/** A `validation_failed` AppError built from a zod error. */
export function validationError(error: z.ZodError, prefix?: string): AppError {
  const details = detailsFromZod(error, prefix);
  const first = details[0];
  return new AppError(
    "validation_failed",
    first ? `Invalid ${first.path}: ${first.message}` : "The request is invalid.",
    details,
  );
}
