/**
 * First stage of the /v1 pipeline: assigns the request id (the caller's `X-Request-Id` when it is a sane
 * token, docs/contract.md section 1) and, on the way out, counts the request (metrics, analytics) and writes one
 * structured log line (with the error code of an error answer, and the trace and span ids while tracing is on;
 * never a stack); the request's span (tracing/request-span.ts) gets the route. Every answer gets its headers where it is built (respond.ts).
 */
import type { Runtime } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import { rawAnswerStatus, requestIdOf } from "../../http/error-answer.ts";
import { recordRequest } from "../../metrics/registry.ts";
import { setRequestRoute, traceLogFields } from "../../tracing/request-span.ts";
import { recordAnalytics } from "../analytics.ts";
import type { RestEnv } from "../env.ts";

/**
 * The matched operation's route template (e.g. `/v1/pets/:petId`); for an answer given before any operation ran
 * (a preflight, a 405), the template of its path (`templateOf`); else `unmatched`.
 */
function routeTemplate(
  c: Parameters<typeof matchedRoutes>[0],
  templateOf: (path: string) => string | undefined,
): string {
  return (
    matchedRoutes(c)
      .filter((r) => r.method !== "ALL")
      .at(-1)?.path ??
    templateOf(c.req.path) ??
    "unmatched"
  );
}

/**
 * @param templateOf the route template serving `path` under any method (app.ts), or undefined when none does
 */
export const requestContext = (
  rt: Pick<Runtime, "logger" | "analytics" | "config">,
  templateOf: (path: string) => string | undefined = () => undefined,
) =>
  createMiddleware<RestEnv>(async (c, next) => {
    const started = performance.now();
    c.set("requestId", requestIdOf(c.req.header("x-request-id")));
    c.set("tokenSent", false);
    await next();
    const route = routeTemplate(c, templateOf);
    const durationMs = performance.now() - started;
    // The status the client got: the server's own answer when it gave one on the socket (a body dripped past
    // the request timeout is answered 408 there while the app, its body read cut off, answers 500 to nobody).
    const status = rawAnswerStatus(c.env?.incoming?.socket) ?? c.res.status;
    recordRequest(route, c.req.method, status, durationMs / 1000);
    recordAnalytics(rt, c, route, durationMs, status);
    setRequestRoute(c.req.method, route);
    rt.logger.info(
      {
        ...traceLogFields(),
        requestId: c.get("requestId"),
        method: c.req.method,
        route,
        status,
        code: c.get("errorCode"),
        durationMs: Math.round(durationMs * 10) / 10,
        keyPrefix: c.get("caller")?.prefix,
      },
      "request",
    );
  });
