/**
 * The log line and the HTTP metrics of a request the router answers outside the REST app (docs/operations.md
 * "Metrics" and "Logs"): the REST app logs and counts `/v1` itself (rest/middleware/request-context.ts), so
 * every request gets exactly one line, and `/v1` pays nothing here. Recorded when the answer ends (`close` of
 * the response, after the last byte or when the client went away first), with `route` a label of bounded
 * cardinality chosen by the router (a page's route pattern, `trpc:<procedure>`, a probe's path, `static`,
 * `unmatched`), never the raw path.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "@petstore/core";
import { recordRequest } from "../metrics/registry.ts";
import { setRequestRoute, traceLogFields } from "../tracing/request-span.ts";
import { rawAnswerStatus } from "./error-answer.ts";

/** The route label of a request no route serves. */
export const UNMATCHED = "unmatched";

/** The status recorded when the client went away before any answer was sent (the common "client closed" code). */
export const CLIENT_CLOSED = 499;

/**
 * Logs and counts `req` once its answer ends: one log line (`msg` "request"; `requestId` when the answer carries
 * `X-Request-Id`, `method`, `route`: the labels joined by `,`, `status`, `durationMs`; `trace_id` and `span_id`
 * while the request is traced) at `level`, and per label in
 * `routes` one increment of `petstore_http_requests_total` and one observation of
 * `petstore_http_request_duration_seconds` (a tRPC batch counts under each procedure it carried). `status` is
 * what the client got: the server's own answer on the socket when it gave one (a request body too slow is a
 * 408 there), else the response's status, or `CLIENT_CLOSED` when nothing was sent.
 */
export function observeRequest(
  logger: Pick<Logger, "info" | "debug">,
  req: IncomingMessage,
  res: ServerResponse,
  routes: readonly string[],
  level: "info" | "debug" = "info",
): void {
  const started = performance.now();
  // Read now: the answer's `close` runs outside the request's span.
  const trace = traceLogFields();
  setRequestRoute(req.method ?? "", routes.join(","));
  res.once("close", () => {
    const durationMs = performance.now() - started;
    const status = rawAnswerStatus(req.socket) ?? (res.headersSent ? res.statusCode : CLIENT_CLOSED);
    const method = req.method ?? "";
    for (const route of routes) recordRequest(route, method, status, durationMs / 1000);
    const requestId = res.getHeader("x-request-id");
    logger[level](
      {
        ...trace,
        requestId: typeof requestId === "string" ? requestId : undefined,
        method,
        route: routes.join(","),
        status,
        durationMs: Math.round(durationMs * 10) / 10,
      },
      "request",
    );
  });
}

/**
 * Logs and counts, as `unmatched`, the answer the server wrote on `socket` itself for a request it could not
 * read (rawAnswerStatus: Node's parser refused it, its head did not arrive within the request timeout, a CONNECT);
 * nothing when no such answer was written. Its duration is unknown: counted, not observed in the histogram.
 * The caller leaves out sockets with a request being answered, whose handler logs the raw status.
 */
export function observeRawAnswer(logger: Pick<Logger, "info">, socket: Socket, method = ""): void {
  const status = rawAnswerStatus(socket);
  if (status === undefined) return;
  recordRequest(UNMATCHED, method, status);
  logger.info({ method: method || undefined, route: UNMATCHED, status }, "request");
}
