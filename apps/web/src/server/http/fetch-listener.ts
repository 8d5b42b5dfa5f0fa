/**
 * A `node:http` request listener over a fetch handler (the REST app, the operational endpoints, the dashboard's
 * JSON API): it stamps the client address (client-ip.ts) and hands the request over through @hono/node-server's
 * adapters. Used by server.ts and by the test harness.
 *
 * The adapter installs its lightweight `Request`/`Response` as the process's globals (its default,
 * `overrideGlobalObjects`): they are subclasses of the platform's classes that build the platform object only
 * when something reads a body stream, so an answer built from a string is written as that string rather than
 * turned into a web stream and read back chunk by chunk (docs/performance.md, "Where the time goes"). The
 * dashboard's tRPC and export handlers get objects of the same classes and work unchanged.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener, type HttpBindings } from "@hono/node-server";
import { stampClientIp, type TrustProxy } from "../client-ip.ts";

/** What a fetch handler gets besides the request: the Node request and response it came through. */
export type NodeBindings = HttpBindings;

/** `(req, res) => void` serving `fetch` (given the Node request and response too); `trustProxy`: TRUST_PROXY (client-ip.ts). */
export function fetchListener(
  fetch: (request: Request, env: NodeBindings) => Promise<Response>,
  trustProxy: TrustProxy,
): (req: IncomingMessage, res: ServerResponse) => void {
  // A node:http server: never the HTTP/2 bindings.
  const listener = getRequestListener((request, env) => fetch(request, env as NodeBindings), {
    overrideGlobalObjects: true,
  });
  return (req, res) => {
    stampClientIp(req, trustProxy);
    void listener(req, res);
  };
}
