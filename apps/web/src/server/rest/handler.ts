/**
 * The REST API's entry: builds the app once per process over the shared runtime and answers 503
 * `service_unavailable` (JSON, Retry-After) while the runtime cannot be opened. The handler is published
 * (mount.ts) so that the Next route handler (app/v1) and the app's own Node server (server.ts) call the same
 * function: one REST app, mounted in two places.
 */
import type { Runtime } from "@petstore/core";
import { notReadyError } from "@petstore/core/errors";
import { getRuntime } from "../runtime.ts";
import { createRestApp, type RestApp } from "./app.ts";
import { publishRestFetch, type RestFetch } from "./mount.ts";
import { errorResponse } from "./problem.ts";

/** A fetch handler over the runtime `runtime()` resolves to; the app is built on its first success. */
export function createRestFetch(runtime: () => Promise<Runtime>): RestFetch {
  let app: RestApp | undefined;
  return async (request) => {
    if (!app) {
      try {
        app = createRestApp(await runtime());
      } catch {
        const response = errorResponse(notReadyError());
        response.headers.set("Cache-Control", "no-store");
        return response;
      }
    }
    return app.fetch(request);
  };
}

/** The process's REST handler (the first one published wins, whichever bundle loaded this module first). */
export const restFetch: RestFetch = publishRestFetch(createRestFetch(getRuntime));
