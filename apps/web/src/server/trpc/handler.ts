/**
 * HTTP entry of the tRPC API (fetch adapter). Before any procedure runs: a state-changing call (POST) whose
 * Origin (or Sec-Fetch-Site) says cross-site is refused with 403; a sign-in (a call of `auth.signIn` alone)
 * while the instance's password work is full with the sign-in's own 429 (Retry-After 1), its body unread, so a
 * sign-in flood's refusals cost no parsing; a body over `TRPC_MAX_BODY_BYTES` with 413;
 * a batch of more than `TRPC_MAX_BATCH_SIZE` calls with 400 (tRPC's `maxBatchSize`). Headers a domain error
 * carries (Retry-After of a throttled sign-in) reach the HTTP response; in a batch the longest Retry-After
 * wins. Every error goes through core's error translator (`toTrpcError`): a database outage, even while the
 * session is read, is 503 with Retry-After. Responses are never cached. Unexpected errors are logged; an
 * outage once, when it starts and ends (dependency-status.ts).
 */
import { type AppError, type Problem, problems } from "@petstore/contracts";
import { type Runtime, SIGN_IN_BUSY_MESSAGE, SIGN_IN_BUSY_RETRY_SECONDS } from "@petstore/core";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { JSON_CONTENT_TYPE, jsonHeaders, requestIdOf } from "../http/error-answer";
import { withBoundedBody } from "./body-limit";
import { createRequestContext } from "./context";
import { appErrorOf, toTrpcError, trpcErrorResponse } from "./errors";
import { isSameOrigin } from "./http";
import { TRPC_MAX_BATCH_SIZE, TRPC_MAX_BODY_BYTES } from "./limits";
import { appRouter } from "./router";

export const TRPC_ENDPOINT = "/api/trpc";

/** The path of a call of `auth.signIn` alone (a batch of one too, `?batch=1`). */
const SIGN_IN_PATH = `${TRPC_ENDPOINT}/auth.signIn`;

/** What `signIn` throws while the password work is full (packages/core sessions/service.ts), answered up front. */
const SIGN_IN_BUSY: Problem = {
  code: "rate_limited",
  message: SIGN_IN_BUSY_MESSAGE,
  headers: { "Retry-After": String(SIGN_IN_BUSY_RETRY_SECONDS) },
};

/** Response headers contributed by the domain errors of one request (the largest Retry-After). */
function errorHeaders(errors: readonly { cause?: unknown }[]): Record<string, string> {
  let retryAfter = 0;
  for (const error of errors) {
    const appError: AppError | undefined = appErrorOf(toTrpcError(error));
    retryAfter = Math.max(retryAfter, Number(appError?.headers?.["Retry-After"] ?? 0));
  }
  return retryAfter > 0 ? { "Retry-After": String(retryAfter) } : {};
}

/** Handles one request to `/api/trpc/*` on runtime `rt` (server.ts's, through dashboard-api.ts). */
export async function handleTrpcRequest(rt: Runtime, req: Request): Promise<Response> {
  const requestId = requestIdOf(req.headers.get("x-request-id"));
  if (req.method !== "GET" && !isSameOrigin(req.headers, rt.config)) {
    return trpcErrorResponse(
      { code: "forbidden", message: "Cross-site requests are not allowed." },
      requestId,
    );
  }
  if (req.method === "POST" && rt.sessions.signInBusy()) {
    const url = new URL(req.url);
    if (url.pathname === SIGN_IN_PATH) {
      return trpcErrorResponse(SIGN_IN_BUSY, requestId, {
        path: "auth.signIn",
        batch: url.searchParams.get("batch") === "1",
      });
    }
  }
  const bounded = await withBoundedBody(req, TRPC_MAX_BODY_BYTES);
  if (!bounded) {
    // The rest of the body is never read, so the connection cannot carry another request (RFC 9112 9.6).
    const tooLarge = problems.payloadTooLarge(TRPC_MAX_BODY_BYTES);
    return trpcErrorResponse({ ...tooLarge, headers: { Connection: "close" } }, requestId);
  }
  const response = await fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: bounded,
    router: appRouter,
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    createContext: ({ resHeaders }) => createRequestContext(rt, bounded, resHeaders),
    // tRPC appends these to its own headers: a Content-Type here would be a second one.
    responseMeta: ({ errors }) => {
      const { "Content-Type": _contentType, ...headers } = jsonHeaders(requestId);
      return { headers: Object.assign(headers, errorHeaders(errors)) };
    },
    onError: ({ error, path }) => {
      const mapped = toTrpcError(error);
      // An unreachable database: logged once per outage and counted (dependency-status.ts), not a stack a call.
      if (mapped.code === "SERVICE_UNAVAILABLE" && appErrorOf(mapped)?.code === "service_unavailable")
        rt.dependencies.down("database", appErrorOf(mapped)?.cause ?? error.cause ?? error, true);
      else if (mapped.code === "INTERNAL_SERVER_ERROR" || mapped.code === "SERVICE_UNAVAILABLE")
        rt.logger.error(
          { err: appErrorOf(mapped)?.cause ?? error.cause ?? error, path },
          "tRPC procedure failed",
        );
    },
  });
  // Every tRPC answer is JSON (streamed batches too): the type every JSON answer of the service carries.
  response.headers.set("Content-Type", JSON_CONTENT_TYPE);
  return response;
}
