/**
 * The node:http server of server.ts with the limits of docs/operations.md "Timeouts and limits", and its start.
 */
import http from "node:http";
import type { Config } from "@petstore/config";
import { MAX_HEADER_BYTES } from "@petstore/contracts";

/**
 * A node:http server over `listener` with `limits` (packages/config's `http`): the time to receive a request's
 * headers and the whole request, and how long an idle kept-alive connection stays open.
 */
export function createHttpServer(
  limits: Config["http"],
  listener: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): http.Server {
  return http.createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      // The router answers a request without Host itself, as JSON (request-target.ts).
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks the two request timeouts above (its default is 30 s, too coarse for them).
      connectionsCheckingInterval: 1000,
    },
    listener,
  );
}

/** Thrown by `listen` when the port cannot be taken; its message is the one line an operator needs. */
export class ListenError extends Error {}

/**
 * Fails fast, before anything slow starts (the dashboard's Next process), when `port` of `host` cannot be taken:
 * binds it with a throwaway server and closes it again. The real `listen` still reports a port taken in between.
 * @throws ListenError as `listen` does.
 */
export async function checkPort(port: number, host?: string): Promise<void> {
  const probe = http.createServer();
  await listen(probe, port, host);
  await new Promise((resolve) => probe.close(resolve));
}

/**
 * Starts `server` on `port` of `host` (an address or host name; undefined: every interface), or, when `fd` is
 * given, on that listening socket passed by a supervisor (packages/config's `listenFd`). @returns once it listens.
 * @throws ListenError when the port is taken by another process (EADDRINUSE) or not allowed (EACCES), when `host`
 * is no address of this machine (EADDRNOTAVAIL, ENOTFOUND), when `fd` is no listening socket, or with the system's
 * message otherwise: the error is handled here, never left to the process's uncaughtException handlers.
 */
export function listen(server: http.Server, port: number, host?: string, fd?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      if (fd !== undefined) {
        reject(
          new ListenError(
            `The socket passed as descriptor ${fd} (LISTEN_FDS) cannot be served (${error.message}): check the supervisor's socket unit, or unset LISTEN_FDS to bind PORT.`,
          ),
        );
        return;
      }
      if (host !== undefined && (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND")) {
        reject(
          new ListenError(
            `HOST ${host} is not an address of this machine: set HOST to one of its addresses, or unset it to listen on every interface.`,
          ),
        );
        return;
      }
      const why =
        error.code === "EADDRINUSE"
          ? "is in use by another process"
          : error.code === "EACCES"
            ? "may not be used by this user"
            : `cannot be listened on (${error.message})`;
      reject(new ListenError(`Port ${port} ${why}: stop what holds it, or set PORT to another port.`));
    };
    server.once("error", failed);
    const listening = () => {
      server.off("error", failed);
      resolve();
    };
    if (fd !== undefined) server.listen({ fd }, listening);
    else server.listen(port, host, listening);
  });
}
