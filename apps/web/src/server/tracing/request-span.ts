/**
 * The server span of each request (docs/operations.md "Tracing"), made in the server's own request path rather
 * than by patching node:http: the production server is an esbuild bundle, which require-hook instrumentations do
 * not see. Only `@opentelemetry/api` is imported here; without a registered SDK its calls are no-ops, and
 * server.ts wraps its router with `tracedListener` only when tracing is configured.
 *
 * The parent comes from the request's `traceparent` and `tracestate` headers (W3C Trace Context, read by the
 * propagator the SDK registers); attributes follow the HTTP server semantic conventions
 * (opentelemetry.io/docs/specs/semconv/http/http-spans/): `http.request.method`, `url.path`, `url.scheme`,
 * `network.protocol.version`, `http.route` once the route is known, and `http.response.status_code`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { rawAnswerStatus } from "../http/error-answer.ts";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const tracer = trace.getTracer("@petstore/web");

/** HTTP methods semantic conventions name as they are; any other is `_OTHER`. */
const KNOWN_METHODS = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);

/** The request target's path, without its query (the query may carry secrets and is not recorded). */
const pathOf = (url: string) => {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
};

/**
 * `listener` with every request run inside a SERVER span, child of the request's `traceparent` when it has one
 * (else the root of a new trace). The span ends when the answer ends (`close` of the response): with
 * `http.response.status_code` the status the client got (the server's own answer on the socket when it gave
 * one), an error status for 5xx, and no status code when the client left before any answer.
 */
export function tracedListener(listener: Listener): Listener {
  return (req, res) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = KNOWN_METHODS.has(req.method ?? "") ? (req.method as string) : "_OTHER";
    const attributes: Attributes = {
      "http.request.method": method,
      "url.path": pathOf(req.url ?? "/"),
      "url.scheme": "encrypted" in req.socket ? "https" : "http",
      "network.protocol.version": req.httpVersion,
    };
    if (method === "_OTHER" && req.method) attributes["http.request.method_original"] = req.method;
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes }, parent);
    res.once("close", () => {
      const status = rawAnswerStatus(req.socket) ?? (res.headersSent ? res.statusCode : undefined);
      if (status !== undefined) {
        span.setAttribute("http.response.status_code", status);
        if (status >= 500) {
          span.setAttribute("error.type", String(status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      }
      span.end();
    });
    context.with(trace.setSpan(parent, span), listener, undefined, req, res);
  };
}

/** The path template of the dashboard's JSON API (tRPC): one procedure, or a batch of them, after the prefix. */
const TRPC_ROUTE = "/api/trpc/:procedure";

/**
 * The `http.route` of a route label (the log's `route`): the label itself when it is a path template
 * (`/v1/pets/:petId`, a page's route pattern), `/api/trpc/:procedure` for the dashboard API's
 * `trpc:<procedure>` labels, `*` for `OPTIONS *`, and none for `static` (Next's files, which no route template names).
 */
function httpRouteOf(route: string): string | undefined {
  if (route.startsWith("/") || route === "*") return route;
  if (route.startsWith("trpc:")) return TRPC_ROUTE;
  return undefined;
}

/**
 * Names the active request span after the route that answers it: `http.route` (a template such as
 * `/v1/pets/:petId`, a page's route pattern, or `/api/trpc/:procedure` for the dashboard's JSON API) and the span
 * name `{method} {route}` with the log's route label (`POST trpc:pets.create`). Nothing when no span is active,
 * or for `unmatched`.
 */
export function setRequestRoute(method: string, route: string): void {
  const span = trace.getActiveSpan();
  // A request no route serves keeps the name `{method}` (semantic conventions: no route, no route in the name).
  if (!span || route === "unmatched") return;
  const httpRoute = httpRouteOf(route);
  if (httpRoute) span.setAttribute("http.route", httpRoute);
  span.updateName(`${KNOWN_METHODS.has(method) ? method : "HTTP"} ${route}`);
}

const NO_FIELDS = Object.freeze({});

/**
 * `{ trace_id, span_id }` (lowercase hex, as in `traceparent`) of the active span, for a log line; `{}` when no
 * span is active (always so when tracing is off).
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return NO_FIELDS;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
