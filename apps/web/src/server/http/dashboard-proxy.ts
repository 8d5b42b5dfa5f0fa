/**
 * The reverse proxy from server.ts to the dashboard process (dashboard.ts) on its private unix socket, through
 * http-proxy-3. Requests go as they came, minus their hop-by-hop headers (RFC 9110 section 7.6.1), with the
 * client-address and trusted-hop stamps the router set (client-ip.ts) and the client's own X-Forwarded-* (proxy.ts and the pages
 * read them by the same trusted-hop rule as server.ts). Answers stream back as Next writes them (RSC streams), minus
 * their hop-by-hop headers, after the security headers the router set (the answer's own win); node:http frames
 * them and decides keep-alive itself (so a draining server's `Connection: close` holds). A client that goes away
 * ends the upstream request; an upstream that fails before answering, or gives no sign of life for
 * `idleTimeoutMs`, gets the dashboard's 503 (`unavailable`); one that fails mid-answer cuts the answer.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { pipeline } from "node:stream";
import { createProxyServer } from "http-proxy-3";

/** Headers about one connection only, never passed on (with the names a Connection header lists). */
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "upgrade"];

/** `headers` without its hop-by-hop fields; `transfer-encoding` too when `framing` (node:http frames answers). */
function endToEnd(headers: IncomingHttpHeaders, framing: boolean): IncomingHttpHeaders {
  const listed = String(headers.connection ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase());
  const drop = new Set([...HOP_BY_HOP, ...listed, ...(framing ? ["transfer-encoding"] : [])]);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.has(name)));
}

export interface DashboardProxy {
  /** Passes `req` to the dashboard process and its answer back. */
  web(req: IncomingMessage, res: ServerResponse): void;
  /** Passes a websocket upgrade through (Next's hot reloading in development). */
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void;
  /** Closes the idle upstream connections. */
  close(): void;
}

/**
 * A proxy to the HTTP server on unix socket `socketPath`; `unavailable(req, res)` answers what the upstream
 * could not (it must end `res`).
 */
/** How long a connection to the dashboard process may stay idle before this side closes it (ms). */
export const IDLE_CONNECTION_MS = 30_000;

export function createDashboardProxy(options: {
  socketPath: string;
  idleTimeoutMs: number;
  unavailable: (req: IncomingMessage, res: ServerResponse) => void;
}): DashboardProxy {
  // Idle connections are closed here first, long before the dashboard process would close them
  // (`KEEP_ALIVE_MS` in next-child/main.ts): a connection it closes just as a request is sent on it would
  // fail that request (EPIPE, ECONNRESET).
  const agent = new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
  const proxy = createProxyServer({
    target: { socketPath: options.socketPath, host: "localhost", port: 80 },
    agent,
    proxyTimeout: options.idleTimeoutMs,
    selfHandleResponse: true,
  });
  proxy.on("proxyRes", (upstream, _req, res) => {
    res.writeHead(upstream.statusCode ?? 502, endToEnd(upstream.headers, true));
    // Connection tracking, the request log, admission, the proxy and the pipeline each wait for the answer's
    // "close": eleven listeners on one answer is their sum, not a leak, and not worth a warning per page.
    res.setMaxListeners(20);
    // On a failure of either side, pipeline destroys both: the client sees a cut answer, never a hang.
    pipeline(upstream, res, () => {});
  });
  // The client left first: nothing to answer.
  proxy.on("econnreset", () => {});

  const failed = (error: Error, req: IncomingMessage, res: ServerResponse | Socket) => {
    if (!("writeHead" in res)) return void res.destroy();
    if (res.headersSent) return void res.destroy();
    process.stderr.write(`dashboard request failed: ${error.message}\n`);
    options.unavailable(req, res);
  };

  return {
    web(req, res) {
      req.headers = endToEnd(req.headers, false);
      proxy.web(req, res, failed);
    },
    upgrade(req, socket, head) {
      proxy.ws(req, socket, head, {}, (error) => {
        process.stderr.write(`dashboard upgrade failed: ${error.message}\n`);
        socket.destroy();
      });
    },
    close() {
      agent.destroy();
    },
  };
}
