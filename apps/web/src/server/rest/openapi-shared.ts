/**
 * OpenAPI building blocks shared by the operations: the common response headers, the Error responses by
 * code, and bearer security. Registered once as components and referenced from each operation, so the
 * served document (`/v1/openapi.json`) and the behaviour come from the same declarations.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import {
  API_KEY_SCOPES,
  type ApiKeyScope,
  ErrorBody,
  type ErrorCode,
  errorStatusByCode,
  SCOPE_DESCRIPTIONS,
} from "@petstore/contracts";
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
    description:
      'IETF draft quota policies, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`; a key with a monthly quota also has `"month";q=...;w=...` (`w`: the current UTC calendar month in seconds).',
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
    description: "`no-store`: no cache keeps the response.",
    required: true,
    schema: { type: "string", const: "no-store" },
  },
};

/** Headers of an answer that may be revalidated (docs/contract.md section 1, "Conditional requests and compression"). */
const cacheableHeaders: Record<string, HeaderObject> = {
  CacheControlRevalidate: {
    description:
      "`private, no-cache, must-revalidate`: a client's own cache may keep the response (`must-revalidate` lets caches store an answer to a request with Authorization), and revalidates it (If-None-Match) before each use.",
    required: true,
    schema: { type: "string", const: "private, no-cache, must-revalidate" },
  },
  ETag: {
    description:
      'Entity tag of the response (RFC 9110 section 8.8.3): strong (`"…"`) for the plain body, weak (`W/"…"`) when the body is compressed. Send it in If-None-Match to get 304 while the answer is unchanged.',
    required: true,
    schema: { type: "string", pattern: '^(W/)?"[^"]*"$' },
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
      'Bearer challenge (RFC 6750): `Bearer realm="petstore"`, with `error="invalid_token"` when a key was sent (401), or `error="insufficient_scope", scope="pets:write"` naming the scope the key lacks (403).',
    required: true,
    schema: text,
  },
  Location: {
    description: "Absolute URL of the created animal or order.",
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
  Allow: {
    description: "The methods the path supports (RFC 9110 section 10.2.1), e.g. `GET, HEAD, POST`.",
    required: true,
    schema: text,
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The `headers` object of a response: the common headers plus `extra` ones. */
export function responseHeaders(...extra: (keyof typeof extraHeaders)[]) {
  return Object.fromEntries([...Object.keys(commonHeaders), ...extra].map((name) => [name, ref(name)]));
}

/** As `responseHeaders`, for an answer with an ETag that clients may keep and revalidate. */
export function cacheableResponseHeaders(...extra: (keyof typeof extraHeaders)[]) {
  return { ...responseHeaders(...extra), "Cache-Control": ref("CacheControlRevalidate"), ETag: ref("ETag") };
}

/** As `responseHeaders`, for an animal a write answers with: its ETag (updatePet's `If-Match`), not kept by caches. */
export function taggedResponseHeaders(...extra: (keyof typeof extraHeaders)[]) {
  return { ...responseHeaders(...extra), ETag: ref("ETag") };
}

/** updatePet's precondition (RFC 9110 section 13.1.1), documented; the operation reads it itself. */
export const ifMatchParameter = {
  name: "If-Match",
  in: "header" as const,
  required: false,
  description:
    "ETags of the animal as the client last read it (or `*`): when none is the animal's current ETag (strong comparison), nothing is written and the answer is 412 `precondition_failed`.",
  schema: { type: "string" as const },
};

/** The request header of a conditional GET (RFC 9110 section 13.1.2), documented; the operation reads it itself. */
export const ifNoneMatchParameter = {
  name: "If-None-Match",
  in: "header" as const,
  required: false,
  description:
    "ETags of answers the client holds (or `*`): when one matches the current answer's (weak comparison), the response is 304 without content.",
  schema: { type: "string" as const },
};

/** The 304 of a cacheable GET (RFC 9110 section 15.4.5): no content, the headers its 200 would have had. */
export function notModifiedResponse(...extra: (keyof typeof extraHeaders)[]) {
  return {
    description:
      "Not Modified: If-None-Match named the current ETag. No content; the headers the 200 would have had. Counts like any request.",
    headers: cacheableResponseHeaders(...extra),
  };
}

const errorHeadersByCode: Partial<Record<ErrorCode, (keyof typeof extraHeaders)[]>> = {
  unauthorized: ["WWW-Authenticate"],
  insufficient_scope: ["WWW-Authenticate"],
  rate_limited: ["Retry-After"],
  quota_exceeded: ["Retry-After"],
  key_banned: ["Retry-After"],
  service_unavailable: ["Retry-After"],
  idempotency_key_in_use: ["Retry-After"],
};

/** A header some codes of a status group carry and others do not: documented as optional there. */
const OPTIONAL_HEADER_COMPONENT: Partial<Record<keyof typeof extraHeaders, string>> = {
  "Retry-After": "RetryAfterWhenInUse",
};

const errorMeaning: Partial<Record<ErrorCode, string>> = {
  unauthorized: "API key missing, malformed, unknown, revoked, expired, or of the other deployment",
  insufficient_scope:
    "the API key lacks the scope this operation needs (`WWW-Authenticate` names it); the call counts like any other",
  invalid_request: "the body is not UTF-8, not valid JSON, or not a JSON object",
  validation_failed: "a query, path, header or body value breaks the schema (see `details`)",
  not_found: "no such animal or order (another owner's order is answered as one that does not exist)",
  method_not_allowed: "the path exists, but not with this method (`Allow` lists its methods)",
  payload_too_large: "the body is over 16 KiB",
  unsupported_media_type: "the body's media type is not one the operation takes (application/json)",
  conflict:
    "the request conflicts with the state of what it names: an animal that is not available to order, an order that is no longer placed, a status change of an animal an order holds",
  precondition_failed: "`If-Match` names an earlier version of the animal: nothing was written",
  idempotency_key_in_use: "a request with the same Idempotency-Key is still being processed",
  idempotency_key_reused: "the Idempotency-Key was used with a different body",
  rate_limited: "a rate-limit window is exhausted",
  quota_exceeded: "the monthly quota is used up until the month ends",
  key_banned: "the key is temporarily banned for calling while denied",
  gone: "the operation was removed at its sunset",
  not_implemented: "the server does not implement the method",
  service_unavailable: "the database is unreachable",
  internal_error: "an unexpected error, logged with the request id",
};

/** Error responses for `codes`, grouped by HTTP status, each listing the codes it may carry. */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(errorStatusByCode[code], [...(byStatus.get(errorStatusByCode[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => {
      const names = new Set(group.flatMap((code) => errorHeadersByCode[code] ?? []));
      const everyCode = [...names].filter((name) =>
        group.every((code) => errorHeadersByCode[code]?.includes(name)),
      );
      const headers: Record<string, { $ref: string }> = responseHeaders(...everyCode);
      for (const name of names) {
        const optional = OPTIONAL_HEADER_COMPONENT[name];
        if (!everyCode.includes(name) && optional)
          headers[name] = { $ref: `#/components/headers/${optional}` };
      }
      return [
        status,
        {
          description: group.map((code) => `\`${code}\`: ${errorMeaning[code] ?? code}`).join("; "),
          headers,
          content: { "application/json": { schema: ErrorBody } },
        },
      ];
    }),
  );
}

/** Codes every authenticated operation may answer with. */
export const baseErrorCodes: ErrorCode[] = [
  "unauthorized",
  "rate_limited",
  "quota_exceeded",
  "key_banned",
  "internal_error",
  "service_unavailable",
];

/**
 * The security requirement of an operation: a bearer key holding `scope` (OpenAPI 3.1 lets a non-OAuth scheme
 * list the roles an operation needs; the API calls them scopes), or any valid key without one.
 */
export const bearerSecurity = (scope?: ApiKeyScope) => [{ bearerAuth: scope ? [scope] : [] }];

/** Registers the shared components (headers, Error schema, bearer scheme) on `app`'s OpenAPI registry. */
export function registerSharedComponents(app: OpenAPIHono<RestEnv>): void {
  for (const [name, header] of Object.entries({ ...commonHeaders, ...extraHeaders, ...cacheableHeaders })) {
    app.openAPIRegistry.registerComponent("headers", name, header as never);
  }
  app.openAPIRegistry.registerComponent("headers", "RetryAfterWhenInUse", {
    description:
      "With `idempotency_key_in_use`: whole seconds (>= 1) to wait before retrying. Absent on other 409s (`conflict`): repeating the same request meets the same state.",
    required: false,
    schema: { type: "integer", minimum: 1 },
  } as never);
  app.openAPIRegistry.register("Error", ErrorBody);
  // A request no operation declares cannot have a response of its own: the 405 every path answers to a method
  // it does not list is described once, here, and the document's description points to it.
  app.openAPIRegistry.registerComponent("responses", "MethodNotAllowed", {
    description: `\`method_not_allowed\`: ${errorMeaning.method_not_allowed}. Answered by every path of this document, and by \`/openapi.json\`, to any method it does not list.`,
    headers: responseHeaders("Allow"),
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "API key as the bearer token: `pet_live_…` (production) or `pet_test_…` (staging). A key holds one or more of the scopes " +
      `${API_KEY_SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join(", ")}; each operation's security ` +
      "requirement names the scope it needs, and a key without it gets 403 `insufficient_scope`.",
  });
}
