/**
 * OpenAPI building blocks shared by the operations: the common response headers, the Error responses by
 * code, and bearer security. Registered once as components and referenced from each operation, so the
 * served document (`/v1/openapi.json`) and the behaviour come from the same declarations.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { ErrorBody, type ErrorCode, errorStatusByCode } from "@petstore/contracts";
import type { RestEnv } from "./env.ts";

type HeaderObject = { description: string; required?: boolean; schema: Record<string, unknown> };

const integer = { type: "integer", minimum: 0 };
const text = { type: "string" };

/** Headers on every /v1 response (docs/contract.md sections 1 and 3). */
export const commonHeaders: Record<string, HeaderObject> = {
  "X-RateLimit-Limit": {
    description:
      "Limit of the window described (the one with the fewest requests left, or the one that denied).",
    required: true,
    schema: integer,
  },
  "X-RateLimit-Remaining": { description: "Requests left in that window.", required: true, schema: integer },
  "X-RateLimit-Reset": {
    description: "Unix time (seconds) at which that window resets.",
    required: true,
    schema: integer,
  },
  "RateLimit-Policy": {
    description: 'IETF draft quota policies, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`.',
    required: true,
    schema: text,
  },
  RateLimit: {
    description: 'IETF draft remaining quota, e.g. `"minute";r=12;t=34, "day";r=870;t=50211`.',
    required: true,
    schema: text,
  },
  "X-Request-Id": {
    description:
      "The caller's X-Request-Id when it is a sane token (<= 128 of [A-Za-z0-9._-]), else a new id.",
    required: true,
    schema: text,
  },
  "Cache-Control": {
    description: "Always `no-store`.",
    required: true,
    schema: { type: "string", const: "no-store" },
  },
};

export const extraHeaders: Record<string, HeaderObject> = {
  "Retry-After": {
    description: "Whole seconds (>= 1) to wait before retrying.",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
  "WWW-Authenticate": {
    description:
      'Bearer challenge (RFC 6750): `Bearer realm="petstore"`, with `error="invalid_token"` when a key was sent.',
    required: true,
    schema: text,
  },
  Location: {
    description: "Absolute URL of the created animal.",
    required: true,
    schema: { type: "string", format: "uri" },
  },
  "Idempotent-Replayed": {
    description: "`true` when this response is a replay of an earlier request with the same Idempotency-Key.",
    schema: { type: "string", enum: ["true"] },
  },
  Deprecation: {
    description: "RFC 9745 deprecation date: `@1767225600` (2026-01-01T00:00:00Z).",
    required: true,
    schema: text,
  },
  Sunset: {
    description: "RFC 8594 removal date: `Thu, 05 Dec 2030 00:00:00 GMT`.",
    required: true,
    schema: text,
  },
  Link: {
    description:
      'RFC 8288 links: `rel="next"` for the next page, `rel="successor-version"` for a deprecated operation\'s replacement.',
    schema: text,
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The `headers` object of a response: the common headers plus `extra` ones. */
export function responseHeaders(...extra: (keyof typeof extraHeaders)[]) {
  return Object.fromEntries([...Object.keys(commonHeaders), ...extra].map((name) => [name, ref(name)]));
}

const errorHeadersByCode: Partial<Record<ErrorCode, (keyof typeof extraHeaders)[]>> = {
  unauthorized: ["WWW-Authenticate"],
  rate_limited: ["Retry-After"],
  key_banned: ["Retry-After"],
  service_unavailable: ["Retry-After"],
  idempotency_key_in_use: ["Retry-After"],
};

const errorMeaning: Partial<Record<ErrorCode, string>> = {
  unauthorized: "API key missing, malformed, unknown, revoked, expired, or of the other deployment",
  invalid_request: "the body is not valid JSON, or not a JSON object",
  validation_failed: "a query, path, header or body value breaks the schema (see `details`)",
  not_found: "no such animal",
  payload_too_large: "the body is over 16 KiB",
  unsupported_media_type: "the body is not application/json",
  idempotency_key_in_use: "a request with the same Idempotency-Key is still being processed",
  idempotency_key_reused: "the Idempotency-Key was used with a different body",
  rate_limited: "a rate-limit window is exhausted",
  key_banned: "the key is temporarily banned for calling while denied",
  gone: "the operation was removed at its sunset",
  not_implemented: "the operation's contract is not published",
  service_unavailable: "the database is unreachable",
  internal_error: "an unexpected error, logged with the request id",
};

/** Error responses for `codes`, grouped by HTTP status, each listing the codes it may carry. */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(errorStatusByCode[code], [...(byStatus.get(errorStatusByCode[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      status,
      {
        description: group.map((code) => `\`${code}\`: ${errorMeaning[code] ?? code}`).join("; "),
        headers: responseHeaders(...new Set(group.flatMap((code) => errorHeadersByCode[code] ?? []))),
        content: { "application/json": { schema: ErrorBody } },
      },
    ]),
  );
}

/** Codes every authenticated operation may answer with. */
export const baseErrorCodes: ErrorCode[] = [
  "unauthorized",
  "rate_limited",
  "key_banned",
  "internal_error",
  "service_unavailable",
];

export const bearerSecurity = [{ bearerAuth: [] }];

/** Registers the shared components (headers, Error schema, bearer scheme) on `app`'s OpenAPI registry. */
export function registerSharedComponents(app: OpenAPIHono<RestEnv>): void {
  for (const [name, header] of Object.entries({ ...commonHeaders, ...extraHeaders })) {
    app.openAPIRegistry.registerComponent("headers", name, header as never);
  }
  app.openAPIRegistry.register("Error", ErrorBody);
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "API key as the bearer token: `pet_live_…` (production) or `pet_test_…` (staging).",
  });
}
