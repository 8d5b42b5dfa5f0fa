/**
 * The Next.js entry of the REST API: builds the app once per process over the shared runtime and answers
 * 503 `service_unavailable` (JSON, Retry-After) while the runtime cannot be opened.
 */
import { AppError } from "@petstore/contracts";
import { getRuntime } from "../runtime.ts";
import { createRestApp, type RestApp } from "./app.ts";
import { errorResponse } from "./problem.ts";

let app: RestApp | undefined;

export async function restFetch(request: Request): Promise<Response> {
  try {
    const runtime = await getRuntime();
    app ??= createRestApp(runtime);
  } catch {
    const response = errorResponse(
      new AppError(
        "service_unavailable",
        "The service is starting or its database is unreachable; retry shortly.",
        undefined,
        {
          "Retry-After": "5",
        },
      ),
    );
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
  return app.fetch(request);
}
