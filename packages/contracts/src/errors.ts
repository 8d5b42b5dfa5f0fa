/**
 * The one error model (docs/contract.md section 1, "Error body"): a closed set of codes, each with its HTTP status.
 * Domain services throw `AppError`; the REST layer renders it as the Error body, tRPC maps it to a TRPCError.
 */
import { z } from "./zod.ts";

export const errorStatusByCode = {
  unauthorized: 401,
  insufficient_scope: 403,
  invalid_request: 400,
  validation_failed: 400,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  header_too_large: 431,
  conflict: 409,
  precondition_failed: 412,
  idempotency_key_in_use: 409,
  idempotency_key_reused: 422,
  rate_limited: 429,
  quota_exceeded: 429,
  key_banned: 429,
  gone: 410,
  not_implemented: 501,
  service_unavailable: 503,
  internal_error: 500,
  // Dashboard-only codes (never sent by the REST API).
  forbidden: 403,
} as const;

export type ErrorCode = keyof typeof errorStatusByCode;

/** Codes the public REST API may answer with (documented in the OpenAPI document). */
export const restErrorCodes = [
  "unauthorized",
  "insufficient_scope",
  "invalid_request",
  "validation_failed",
  "not_found",
  "method_not_allowed",
  "request_timeout",
  "payload_too_large",
  "unsupported_media_type",
  "header_too_large",
  "conflict",
  "precondition_failed",
  "idempotency_key_in_use",
  "idempotency_key_reused",
  "rate_limited",
  "quota_exceeded",
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
 * A failure a caller can act on, thrown by the services. `status` follows from `code`; `details` lists
 * per-field problems; `headers` carries response headers that belong to the error (Retry-After, Allow,
 * WWW-Authenticate). It is a `Problem` (http.ts), rendered like every other error answer.
 */
export class AppError extends Error {
  readonly status: number;
  readonly [APP_ERROR_BRAND] = true;

  /**
   * True for an AppError from any copy of this module: a bundle that carries its own copy (Next's, esbuild's)
   * fails `instanceof` against an error made by another.
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
    super(message);
    this.name = "AppError";
    this.status = errorStatusByCode[code];
  }

  /** The Error body of docs/contract.md section 1. */
  toBody(): ErrorBody {
    return errorBody(this);
  }

  /** An AppError saying what `problem` says (to throw it). */
  static of(problem: {
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
    headers?: Record<string, string>;
  }) {
    return new AppError(problem.code, problem.message, problem.details, problem.headers);
  }
}

/** The Error body (docs/contract.md section 1) of an error answer: code, message, status, details if any. */
export function errorBody(problem: {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[] | undefined;
}): ErrorBody {
  const body: ErrorBody = {
    code: problem.code as ErrorBody["code"],
    message: problem.message,
    status: errorStatusByCode[problem.code],
  };
  if (problem.details?.length) body.details = problem.details;
  return body;
}

/**
 * Converts zod issues to `details` entries (`path` dotted, `message` as the schema words it), one per distinct
 * path and message: two checks that refuse a value for the same reason (an integer type's own range and an
 * explicit maximum) make one entry.
 */
export function detailsFromZod(error: z.ZodError, prefix?: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    const parts = [prefix, ...issue.path.map(String)].filter((p): p is string => Boolean(p));
    const detail =
      issue.code === "unrecognized_keys"
        ? {
            path: [...parts, ...issue.keys].join(".") || "body",
            message: `unknown property: ${issue.keys.join(", ")}`,
          }
        : { path: parts.join(".") || prefix || "body", message: issue.message };
    if (!details.some((d) => d.path === detail.path && d.message === detail.message)) details.push(detail);
  }
  return details;
}

/** The `validation_failed` problem of a zod error: the first detail in the message, all in `details`. */
export function validationProblem(
  error: z.ZodError,
  prefix?: string,
): { code: "validation_failed"; message: string; details: ErrorDetail[] } {
  const details = detailsFromZod(error, prefix);
  const first = details[0];
  return {
    code: "validation_failed",
    message: first ? `Invalid ${first.path}: ${first.message}` : "The request is invalid.",
    details,
  };
}

/** A `validation_failed` AppError built from a zod error (to throw it). */
export function validationError(error: z.ZodError, prefix?: string): AppError {
  return AppError.of(validationProblem(error, prefix));
}
