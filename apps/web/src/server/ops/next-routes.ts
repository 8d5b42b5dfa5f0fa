/**
 * The operational endpoints as Next route handlers, for hosts without server.ts (`next start`, `next dev`): the
 * same handlers over the runtime the process opens on first use (../runtime.ts), waiting at most 1 s for it.
 */
import { getConfig } from "@petstore/config";
import { type Runtime, withTimeout } from "@petstore/core";
import { getRuntime } from "../runtime.ts";
import { createOpsFetch } from "./handler.ts";

const RUNTIME_WAIT_MS = 1000;

const openedRuntime = (): Promise<Runtime | undefined> =>
  withTimeout(getRuntime(), RUNTIME_WAIT_MS, "runtime").catch(() => undefined);

let fetch: ((request: Request) => Promise<Response>) | undefined;

/** Answers GET /healthz, /readyz or /metrics. */
export function opsRoute(request: Request): Promise<Response> {
  fetch ??= createOpsFetch({ config: getConfig(), runtime: openedRuntime });
  return fetch(request);
}
