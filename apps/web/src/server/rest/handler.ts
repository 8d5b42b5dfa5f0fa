/**
 * The REST API's fetch handler over a runtime: builds the app (app.ts) on the runtime's first success and answers
 * 503 `service_unavailable` (JSON, Retry-After) while the runtime cannot be opened. server.ts mounts it over the
 * runtime it opened.
 */
import type { Runtime } from "@petstore/core";
import { notReadyError } from "@petstore/core/errors";
import { errorResponse } from "../http/error-answer.ts";
import type { NodeBindings } from "../http/fetch-listener.ts";
import { createRestApp, type RestApp } from "./app.ts";

/**
 * `(request) => response` for any URL under /v1 (docs/interface.md); `env`, when served by fetch-listener.ts, the
 * Node request and response (the log line reads from them what the server itself answered).
 */
export type RestFetch = (request: Request, env?: NodeBindings) => Promise<Response>;

/** A fetch handler over the runtime `runtime()` resolves to; the app is built on its first success. */
export function createRestFetch(runtime: () => Promise<Runtime>): RestFetch {
  let app: RestApp | undefined;
  return async (request, env) => {
    if (!app) {
      try {
        app = createRestApp(await runtime());
      } catch {
        return errorResponse(notReadyError(), request.headers.get("x-request-id"));
      }
    }
    return app.fetch(request, env);
  };
}

/** True for the paths the REST app owns: `/v1` and everything under `/v1/` (query string ignored). */
export function isRestPath(url: string | undefined): boolean {
  if (!url?.startsWith("/v1")) return false;
  const c = url.charCodeAt(3);
  return Number.isNaN(c) || c === 47 /* / */ || c === 63 /* ? */;
}
