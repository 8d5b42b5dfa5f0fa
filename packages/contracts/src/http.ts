/**
 * The HTTP limits of the public surface, and the standard problems the server answers with on its own
 * (docs/contract.md section 1): each limit and each message is defined here once, and every renderer (the REST
 * app, the app's Node server, the probes) builds its answer from these.
 *
 * A `Problem` is a plain value, not an Error: refusals on the hot path (a missing key, a 429, a 405) are answers,
 * and building an Error would capture a stack trace for nothing. `AppError` (errors.ts) is a `Problem` too.
 */
import type { ErrorCode, ErrorDetail } from "./errors.ts";

/** Largest request body of the REST API. */
export const MAX_BODY_BYTES = 16 * 1024;
/** Largest request header section the server reads. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Methods the app's routes serve (the REST operations, the dashboard, the docs); others are 405 everywhere. */
export const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** What an error answer says: the Error body's fields and the headers that belong to it. */
export interface Problem {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: ErrorDetail[] | undefined;
  readonly headers?: Record<string, string> | undefined;
}

const kib = (bytes: number) => `${bytes / 1024} KiB`;

/** The standard problems, one message each. */
export const problems = {
  /**
   * `keyEnvironment`: the deployment the key sent belongs to, when it is not this one (docs/contract.md section 2:
   * `pet_live_` keys work on production only, `pet_test_` keys on staging only).
   */
  unauthorized: (tokenSent: boolean, keyEnvironment?: "production" | "staging"): Problem => ({
    code: "unauthorized",
    message: keyEnvironment
      ? `The API key is a ${keyEnvironment} key (${keyEnvironment === "staging" ? "pet_test_" : "pet_live_"}…): it works only on ${keyEnvironment}; this is ${keyEnvironment === "staging" ? "production, which takes pet_live_ keys" : "staging, which takes pet_test_ keys"}.`
      : tokenSent
        ? "The API key is invalid, revoked or expired."
        : "An API key is required: send it as 'Authorization: Bearer <key>'.",
    headers: {
      // RFC 6750 section 3.
      "WWW-Authenticate": tokenSent
        ? 'Bearer realm="petstore", error="invalid_token", error_description="The API key is invalid, revoked or expired"'
        : 'Bearer realm="petstore"',
    },
  }),
  notFound: (path: string): Problem => ({ code: "not_found", message: `No resource at ${path}.` }),
  methodNotAllowed: (method: string, allowed: readonly string[]): Problem => ({
    code: "method_not_allowed",
    message: `${method} is not allowed here; use ${allowed.join(", ")}.`,
    headers: { Allow: allowed.join(", ") },
  }),
  payloadTooLarge: (limitBytes = MAX_BODY_BYTES): Problem => ({
    code: "payload_too_large",
    message: `The request body is larger than ${kib(limitBytes)}.`,
  }),
  unsupportedMediaType: (accepted = "application/json"): Problem => ({
    code: "unsupported_media_type",
    message: `Send the request body as ${accepted}.`,
  }),
  headerTooLarge: (): Problem => ({
    code: "header_too_large",
    message: `The request headers are larger than ${kib(MAX_HEADER_BYTES)}.`,
  }),
  requestTimeout: (): Problem => ({
    code: "request_timeout",
    message: "The request was not received in time.",
  }),
  malformedRequest: (what = "The request could not be parsed as HTTP."): Problem => ({
    code: "invalid_request",
    message: what,
  }),
  methodNotImplemented: (): Problem => ({
    code: "not_implemented",
    message: "This server does not implement that method.",
  }),
  internalError: (requestId?: string): Problem => ({
    code: "internal_error",
    message: requestId
      ? `An unexpected error occurred (request id ${requestId}).`
      : "An unexpected error occurred.",
  }),
} as const;
