/**
 * First stage of the /v1 pipeline: assigns the request id (the caller's `X-Request-Id` when it is a sane
 * token, docs/contract.md section 1), starts the headers every /v1 response carries (X-Request-Id,
 * Cache-Control: no-store, JSON content type; later stages add theirs) and, on the way out, writes one
 * structured log line.
 */
import { randomUUID } from "node:crypto";
import type { Runtime } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import { recordRequest } from "../../metrics/registry.ts";
import { recordAnalytics } from "../analytics.ts";
import type { RestEnv } from "../env.ts";
import { hasCommonHeaders, JSON_CONTENT_TYPE } from "../problem.ts";

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

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
    const given = c.req.header("x-request-id");
    const requestId = given && SANE_REQUEST_ID.test(given) ? given : randomUUID();
    c.set("requestId", requestId);
    c.set("tokenSent", false);
    const common = {
      "X-Request-Id": requestId,
      "Cache-Control": "no-store",
      "Content-Type": JSON_CONTENT_TYPE,
    };
    c.set("responseHeaders", common);
    await next();
    // Answers not built by problem.ts's jsonResponse (e.g. the OpenAPI document) get the common headers here.
    if (!hasCommonHeaders(c))
      for (const [name, value] of Object.entries(c.get("responseHeaders"))) c.res.headers.set(name, value);
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
