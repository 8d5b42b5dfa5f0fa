/**
 * How the node:http server takes requests off its connections (docs/operations.md "Timeouts and limits"):
 *
 * - One request at a time per connection. HTTP/1.1 answers pipelined requests in order anyway; Node would start
 *   every request it parsed from a socket's buffer at once, so a client that pipelines hundreds of requests
 *   without reading the answers made the server hold hundreds of requests in progress per connection. Here the
 *   next one starts when the previous answer is finished and the socket has drained what was written: a client
 *   that does not read stops being served, and its socket stops being read. At most `MAX_WAITING` parsed
 *   requests wait per connection; a client that sends more is disconnected, and neither that request nor any
 *   other Node still parses from the data already read is tracked or handled.
 * - The requests in progress are tracked, so that a stop can send `Connection: close` on every answer still to
 *   come and wait for them (lifecycle.ts).
 * - The open connections are tracked too, for the end of a stop's drain (`closeIdle`): a connection that was
 *   answered and is idle is closed (FIN), as Node's `closeIdleConnections` does; one that has not delivered its
 *   first request yet is waited for, up to a bound, as its client has sent or is sending a request on it. Node
 *   leaves those open but nothing waited for them: the process exited with their request on its way or unread in
 *   the socket's receive buffer, which the kernel answers with a reset (RFC 9293 section 3.6).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** Parsed requests that may wait on one connection behind the one in progress. */
export const MAX_WAITING = 32;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

interface ConnectionState {
  busy: boolean;
  /** The answer in progress, until its "close". */
  current: ServerResponse | undefined;
  waiting: [IncomingMessage, ServerResponse][];
}

const STATE = Symbol("petstore.connection");
type TrackedSocket = Socket & { [STATE]?: ConnectionState };

export interface Connections {
  /** The node:http `request` listener: queues per connection and calls `handle` one request at a time. */
  listener: Listener;
  /** Answers still to be finished (started or waiting). */
  readonly inProgress: number;
  /** Whether a request on `socket` is being answered (its handler will log what the socket was answered). */
  answering(socket: Socket): boolean;
  /** From now on every answer (also those already started, if their headers are not out) closes its connection. */
  closeAfterAnswers(): void;
  /** Tracks `socket` from its node:http `connection` event on, until it closes. */
  track(socket: Socket): void;
  /**
   * The end of a drain: closes (FIN) the connections that were answered and are idle now. Those that have not
   * delivered a first request are left open for up to `firstRequestMs`, then closed; their request, if it comes,
   * is answered (with `Connection: close` after `closeAfterAnswers`).
   */
  closeIdle(firstRequestMs: number): void;
  /**
   * Resolves when no answer is in progress and no connection left open by `closeIdle` waits for its first
   * request, or after `ms`; true when none is left.
   */
  settled(ms: number): Promise<boolean>;
}

/** Wraps `handle` (which must end every response it is given) with the per-connection flow above. */
export function createConnections(handle: Listener): Connections {
  const responses = new Set<ServerResponse>();
  const sockets = new Set<TrackedSocket>();
  /** Connections `closeIdle` left open for their first request. */
  const unused = new Set<TrackedSocket>();
  let closing = false;
  let onSettled: (() => void) | undefined;

  const check = () => {
    if (responses.size === 0 && unused.size === 0) onSettled?.();
  };
  const finished = (res: ServerResponse) => {
    responses.delete(res);
    check();
  };

  const start = (
    socket: TrackedSocket,
    state: ConnectionState,
    req: IncomingMessage,
    res: ServerResponse,
  ) => {
    state.busy = true;
    state.current = res;
    if (closing) res.shouldKeepAlive = false;
    // One plain listener per answer ("close" fires once): it is on every request's path.
    res.on("close", () => {
      finished(res);
      if (state.current === res) state.current = undefined;
      startNext(socket, state);
    });
    handle(req, res);
  };

  /** Starts the connection's next waiting request once the socket has drained; it stays queued until then. */
  const startNext = (socket: TrackedSocket, state: ConnectionState) => {
    const next = state.waiting[0];
    // A connection the client left: what waits is never answered (the socket's "close" lets it go).
    if (socket.destroyed) return;
    if (!next) {
      state.busy = false;
      if (socket.isPaused()) socket.resume();
      return;
    }
    if (socket.writableNeedDrain) {
      socket.once("drain", () => startNext(socket, state));
      return;
    }
    state.waiting.shift();
    start(socket, state, ...next);
  };

  const listener: Listener = (req, res) => {
    const socket = req.socket as TrackedSocket;
    // Node's parser goes on through the rest of the chunk it is reading after the socket is destroyed (past the
    // cap, or by the client): those requests have no one to answer, are never tracked and cost nothing more.
    if (socket.destroyed) return;
    let state = socket[STATE];
    if (!state) {
      const created: ConnectionState = { busy: false, current: undefined, waiting: [] };
      state = socket[STATE] = created;
      // A connection the client left, or one closed after a raw error answer (a 408 of a dripped body): its
      // answers leave the count here, as Node emits "close" only on the answer the socket is assigned to.
      socket.once("close", () => {
        if (created.current) finished(created.current);
        created.current = undefined;
        for (const [, waitingRes] of created.waiting.splice(0)) finished(waitingRes);
      });
    }
    if (state.busy && state.waiting.length >= MAX_WAITING) {
      socket.destroy();
      return;
    }
    // In the count before the connection leaves `unused`: a stop never sees a moment with nothing left.
    responses.add(res);
    unused.delete(socket);
    if (!state.busy) return start(socket, state, req, res);
    state.waiting.push([req, res]);
    socket.pause();
  };

  return {
    listener,
    get inProgress() {
      return responses.size;
    },
    answering: (socket) => (socket as TrackedSocket)[STATE]?.current !== undefined,
    closeAfterAnswers() {
      closing = true;
      for (const res of responses) if (!res.headersSent) res.shouldKeepAlive = false;
    },
    track(socket) {
      sockets.add(socket);
      socket.once("close", () => {
        sockets.delete(socket);
        if (unused.delete(socket)) check();
      });
    },
    closeIdle(firstRequestMs) {
      for (const socket of sockets) {
        const state = socket[STATE];
        if (!state) {
          // Connected, its request not read yet (maybe on its way): answered if it comes in time.
          unused.add(socket);
          continue;
        }
        // Idle after an answer; a request sent at this very moment meets the FIN (clients retry those).
        if (!state.busy) socket.destroy();
      }
      if (unused.size === 0) return;
      const timer = setTimeout(() => {
        for (const socket of unused) socket.destroy();
      }, firstRequestMs);
      timer.unref();
    },
    settled(ms) {
      if (responses.size === 0 && unused.size === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        onSettled = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
  };
}
