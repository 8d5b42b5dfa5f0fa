/**
 * First stage of the /v1 pipeline: assigns the request id (the caller's `X-Request-Id` when it is a sane
 * token, docs/contract.md section 1) and, on the way out, counts the request (metrics, analytics) and writes one
 * structured log line. Every answer gets its headers where it is built (problem.ts).
 */
import type { Runtime } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import { requestIdOf } from "../../http/error-answer.ts";
import { recordRequest } from "../../metrics/registry.ts";
import { recordAnalytics } from "../analytics.ts";
import type { RestEnv } from "../env.ts";

/** The matched operation's route template (e.g. `/v1/pets/:petId`), or `unmatched`. */
function routeTemplate(c: Parameters<typeof matchedRoutes>[0]): string {
  return (
    matchedRoutes(c)
      .filter((r) => r.method !== "ALL")
      .at(-1)?.path ?? "unmatched"
  );
}

export const requestContext = (rt: Pick<Runtime, "logger" | "analytics" | "config">) =>
  createMiddleware<RestEnv>(async (c, next) => {
    const started = performance.now();
    c.set("requestId", requestIdOf(c.req.header("x-request-id")));
    c.set("tokenSent", false);
    await next();
    const route = routeTemplate(c);
    const durationMs = performance.now() - started;
    recordRequest(route, c.req.method, c.res.status, durationMs / 1000);
    recordAnalytics(rt, c, route, durationMs);
    rt.logger.info(
      {
        requestId: c.get("requestId"),
        method: c.req.method,
        route,
        status: c.res.status,
        durationMs: Math.round(durationMs * 10) / 10,
        keyPrefix: c.get("caller")?.prefix,
      },
      "request",
    );
  });
