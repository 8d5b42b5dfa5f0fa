/**
 * The Node side of the `/v1` mount (issue 7): a `node:http` request listener that stamps the client IP
 * (client-ip.ts) and hands the request to a REST fetch handler through @hono/node-server's adapters. Used by
 * server.ts with the handler Next's bundle published (mount.ts), and by the test harness.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { stampClientIp } from "../client-ip.ts";
import type { RestFetch } from "./mount.ts";

/** `(req, res) => void` serving `fetch`; `trustProxy` as in client-ip.ts. */
export function restRequestListener(
  fetch: RestFetch,
  trustProxy: boolean,
): (req: IncomingMessage, res: ServerResponse) => void {
  // overrideGlobalObjects: false keeps the global Request/Response intact for Next in the same process.
  const listener = getRequestListener((request) => fetch(request), { overrideGlobalObjects: false });
  return (req, res) => {
    stampClientIp(req, trustProxy);
    void listener(req, res);
  };
}
