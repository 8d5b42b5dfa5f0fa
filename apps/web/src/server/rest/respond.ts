/**
 * Every answer of the REST app is written here (docs/contract.md section 1), its headers merged in one place
 * (`mergeHeaders`), its body compressed when it is large and the client accepts it (content-coding.ts). Errors are
 * rendered from a `Problem` by the one renderer; anything thrown becomes one through core's error translator
 * (an unreachable database: 503 with Retry-After, the outage logged once; anything unknown: 500 `internal_error`,
 * logged with the request id, nothing internal sent).
 */
import { AppError, type Problem, problems } from "@petstore/contracts";
import { translateError } from "@petstore/core/errors";
import type { Context, TypedResponse } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { errorAnswer, jsonHeaders } from "../http/error-answer.ts";
import { encodeBody } from "./content-coding.ts";
import type { RestEnv } from "./env.ts";

/**
 * Maps anything thrown to the problem to answer with: the unexpected ones are logged (`log`, with their stack);
 * an unreachable database is reported to `unavailable` (the dependency status logs the outage once, and each
 * refused request only its request line).
 */
export function problemFromError(
  error: unknown,
  c: Context<RestEnv>,
  log: (obj: object, msg: string) => void,
  unavailable: (error: unknown) => void = (err) =>
    log({ err, requestId: c.get("requestId") }, "database unavailable"),
): Problem {
  if (AppError.is(error)) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413) return problems.payloadTooLarge();
    if (error.status === 415) return problems.unsupportedMediaType();
    if (error.status === 400) return problems.malformedRequest("The request body is not valid JSON.");
  }
  const requestId = c.get("requestId");
  const { error: appError, kind } = translateError(error, { requestId });
  if (kind === "unavailable") unavailable(error);
  if (kind === "unexpected") log({ err: error, requestId }, "unhandled error");
  return appError;
}

/**
 * The headers of an answer to the request of `c`, in one place: the operation's `own`, getPet's lifecycle
 * headers, the admission's rate-limit headers, the CORS headers, those of every JSON answer (request id,
 * no-store, nosniff), and last a cacheable answer's validator and caching (conditional.ts), which replace the
 * default no-store.
 */
export function mergeHeaders(c: Context<RestEnv>, own?: Record<string, string>): Record<string, string> {
  // Object.assign, not a multiple spread: on Node 20 a second spread into a new object takes V8's slow path.
  return Object.assign(
    {},
    own,
    c.get("lifecycle"),
    c.get("rateLimit"),
    c.get("cors"),
    jsonHeaders(c.get("requestId")),
    c.get("caching"),
  );
}

function send(c: Context<RestEnv>, status: number, body: string, own?: Record<string, string>): Response {
  const headers = mergeHeaders(c, own);
  // A body over 1 KiB goes out compressed when the client accepts it (content-coding.ts).
  const encoded = encodeBody(c, body, headers);
  // Hono drops a HEAD's body before it is written, and with it the length the writer would give the GET: a HEAD
  // carries the headers of the GET, Content-Length included (RFC 9110 section 9.3.2).
  if (c.req.method === "HEAD")
    headers["Content-Length"] = String(
      typeof encoded === "string" ? Buffer.byteLength(encoded) : encoded.byteLength,
    );
  return new Response(encoded, { status, headers });
}

/**
 * The JSON response of an operation: `json` (the JSON text of a `T`, already serialised), `status`, its own
 * `headers`, and the request's common ones. The headers stay a plain object: @hono/node-server writes it as it
 * is, with no `Headers` object built.
 */
export function respondJson<T, S extends ContentfulStatusCode>(
  c: Context<RestEnv>,
  status: S,
  json: string,
  headers?: Record<string, string>,
): Response & TypedResponse<T, S, "json"> {
  return send(c, status, json, headers) as Response & TypedResponse<T, S, "json">;
}

/**
 * The error answer of `problem` for the request of `c`: the Error body (http/error-answer.ts) with every header
 * of the request's answer merged in (`mergeHeaders`), its code noted for the request's log line.
 */
export function respondProblem(problem: Problem, c: Context<RestEnv>): Response {
  c.set("errorCode", problem.code);
  const { status, body } = errorAnswer(problem, c.get("requestId"));
  return send(c, status, body, problem.headers);
}
