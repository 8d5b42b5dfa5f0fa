/**
 * The errors the client throws. `PetStoreError` is an error response of the API and carries the API's
 * Error body fields (`code`, `message`, `status`, `details`; docs/contract.md section 1 "Error body") plus the
 * response's `X-Request-Id` as `requestId`. `PetStoreNetworkError` means no response arrived (connection
 * failed, or the attempt timed out) within the retry budget.
 */
import type { components } from "./generated/v1.js";

export type ErrorBody = components["schemas"]["Error"];
/** The API's error codes, plus `unexpected_response` for an error response that is not an Error body. */
export type ErrorCode = ErrorBody["code"] | "unexpected_response";
export type ErrorDetail = NonNullable<ErrorBody["details"]>[number];

function isErrorBody(body: unknown): body is ErrorBody {
  const b = body as Partial<ErrorBody> | null;
  return typeof b === "object" && b !== null && typeof b.code === "string" && typeof b.message === "string";
}

/** An error response of the API (any status >= 400), after the client's retries. */
export class PetStoreError extends Error {
  override readonly name = "PetStoreError";
  /** Machine-readable code from the Error body. */
  readonly code: ErrorCode;
  /** HTTP status. */
  readonly status: number;
  /** Per-field problems of a 400 (`validation_failed`). */
  readonly details: ErrorDetail[] | undefined;
  /** The response's X-Request-Id: quote it when asking the operator about this error. */
  readonly requestId: string | undefined;
  /** Seconds the response's Retry-After asked to wait, when it had one (429, 503, 409). */
  readonly retryAfter: number | undefined;
  /** Attempts the call made, this one included. */
  readonly attempts: number;

  constructor(
    fields: {
      code: ErrorCode;
      message: string;
      status: number;
      details?: ErrorDetail[] | undefined;
      requestId?: string | undefined;
      retryAfter?: number | undefined;
    },
    attempts = 1,
  ) {
    super(fields.message);
    this.code = fields.code;
    this.status = fields.status;
    this.details = fields.details;
    this.requestId = fields.requestId;
    this.retryAfter = fields.retryAfter;
    this.attempts = attempts;
  }

  /** Builds the error from a response and its parsed body (an Error body, or whatever else was sent). */
  static fromResponse(response: Response, body: unknown, attempts = 1, retryAfterMs?: number): PetStoreError {
    const common = {
      status: response.status,
      requestId: response.headers.get("x-request-id") ?? undefined,
      retryAfter: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
    };
    if (isErrorBody(body)) {
      return new PetStoreError(
        { ...common, code: body.code, message: body.message, details: body.details },
        attempts,
      );
    }
    const text = typeof body === "string" ? body.slice(0, 200) : "";
    return new PetStoreError(
      {
        ...common,
        code: "unexpected_response",
        message: `HTTP ${response.status} ${response.statusText}${text ? `: ${text}` : ""}`.trim(),
      },
      attempts,
    );
  }

  /** The Error body fields (and `requestId`), e.g. for logging as JSON. */
  toJSON(): Omit<ErrorBody, "code"> & { code: ErrorCode; requestId?: string } {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      ...(this.details ? { details: this.details } : {}),
      ...(this.requestId ? { requestId: this.requestId } : {}),
    };
  }
}

/** No response: the connection failed or the attempt timed out, on every attempt the budget allowed. */
export class PetStoreNetworkError extends Error {
  override readonly name = "PetStoreNetworkError";
  /** True when the last attempt was aborted by the client's per-attempt timeout. */
  readonly timedOut: boolean;

  constructor(
    readonly operation: string,
    cause: unknown,
    readonly attempts = 1,
  ) {
    const timedOut = cause instanceof Error && cause.name === "TimeoutError";
    super(
      `${operation}: no response from the Pet Store API (${timedOut ? "timed out" : cause instanceof Error ? cause.message : String(cause)})`,
      { cause },
    );
    this.timedOut = timedOut;
  }
}
