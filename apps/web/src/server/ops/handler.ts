/**
 * The operational endpoints (GET and HEAD of /healthz, /readyz, /metrics) as one fetch handler, published (mount.ts) so that
 * server.ts answers them without Next's router, as it does /v1. Why: the first request Next serves enables its
 * AsyncLocalStorage instances for the rest of the process (4 of them, Node 20), whose promise hooks then run for
 * every promise of every request, /v1 included; probes and scrapes arrive every few seconds, so through Next they
 * would switch that cost on in an instance that serves only the API (issue 7; docs/architecture.md). The Next
 * routes (app/healthz, app/readyz, app/metrics) call the same functions, for `next dev` and other hosts.
 */

import { metricsResponse } from "../metrics/endpoint.ts";
import { type OpsPath, publishOpsFetch } from "../rest/mount.ts";
import { healthResponse, readinessResponse } from "./probes.ts";

const ANSWERS: Record<OpsPath, (request: Request) => Response | Promise<Response>> = {
  "/healthz": healthResponse,
  "/readyz": readinessResponse,
  "/metrics": metricsResponse,
};

/** The process's handler for GET and HEAD on the operational paths (the first one published wins). */
export const opsFetch = publishOpsFetch((request) => {
  const answer = ANSWERS[new URL(request.url).pathname as OpsPath];
  return Promise.resolve(answer(request));
});
