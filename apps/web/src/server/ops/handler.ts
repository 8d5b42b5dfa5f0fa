/**
 * The operational endpoints (GET and HEAD of /healthz, /readyz, /metrics) as one fetch handler, which server.ts
 * answers itself in every role (docs/architecture.md "Request paths").
 */
import type { Config } from "@petstore/config";
import type { Runtime } from "@petstore/core";
import { metricsEndpoint } from "../metrics/endpoint.ts";
import { healthResponse, readinessEndpoint } from "./probes.ts";

/** The paths this handler answers. */
export const OPS_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/** `(request) => response` for GET and HEAD of the paths in `OPS_PATHS`. */
export function createOpsFetch(deps: {
  config: Pick<Config, "metrics">;
  runtime: () => Promise<Runtime | undefined>;
  draining?: () => boolean;
  /** Monotonic ms deciding when a /metrics render is reused (performance.now unless a test injects one). */
  now?: () => number;
}): (request: Request) => Promise<Response> {
  const answers: Record<string, (request: Request) => Response | Promise<Response>> = {
    "/healthz": healthResponse,
    "/readyz": readinessEndpoint(deps.runtime, deps.draining),
    "/metrics": metricsEndpoint(deps.config.metrics, deps.runtime, deps.draining, deps.now),
  };
  return async (request) => {
    const answer = answers[new URL(request.url).pathname] ?? healthResponse;
    return answer(request);
  };
}
