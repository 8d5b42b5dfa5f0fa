/**
 * A local HTTP server that answers each request with the next scripted reply, and records what it was sent:
 * real HTTP for the client's unit tests, with the API's behaviour reduced to the replies a test needs.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply = (res: http.ServerResponse, req: RecordedRequest) => void;

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues replies; a request with none queued gets a 500 `internal_error`. */
  script(...replies: Reply[]): void;
  close(): Promise<void>;
}

/** A JSON reply with `status`, `body` and extra `headers` (X-Request-Id `req-<n>` unless given). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (res, req) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "x-request-id": `req-${req.url}`,
      ...headers,
    });
    res.end(JSON.stringify(body));
  };
}

/** An API error reply: the Error body `{code, message, status}` plus `headers`. */
export function apiError(status: number, code: string, headers: Record<string, string> = {}): Reply {
  return json(status, { code, message: `${code} happened`, status }, headers);
}

/** Drops the connection without answering (a network error for the client). */
export const dropConnection: Reply = (res) => {
  res.socket?.destroy();
};

/** Answers with `reply` only after `ms` (the client's timeout may have fired by then). */
export function after(ms: number, reply: Reply): Reply {
  return (res, req) => {
    setTimeout(() => {
      if (!res.destroyed) reply(res, req);
    }, ms);
  };
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      requests.push(recorded);
      (queue.shift() ?? apiError(500, "internal_error"))(res, recorded);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => queue.push(...replies),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
