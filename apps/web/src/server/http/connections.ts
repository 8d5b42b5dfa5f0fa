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
  /** Resolves when no answer is in progress, or after `ms`; true when none is left. */
  settled(ms: number): Promise<boolean>;
}

/** Wraps `handle` (which must end every response it is given) with the per-connection flow above. */
export function createConnections(handle: Listener): Connections {
  const responses = new Set<ServerResponse>();
  let closing = false;
  let onSettled: (() => void) | undefined;

  const finished = (res: ServerResponse) => {
    responses.delete(res);
    if (responses.size === 0) onSettled?.();
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
    if (!state.busy) {
      responses.add(res);
      return start(socket, state, req, res);
    }
    if (state.waiting.length >= MAX_WAITING) {
      socket.destroy();
      return;
    }
    responses.add(res);
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
    settled(ms) {
      if (responses.size === 0) return Promise.resolve(true);
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
