/**
 * A loopback webhook receiver for tests, the e2e setup and the benchmark: a node:http server on 127.0.0.1
 * that records every request (path, the Standard Webhooks headers, body, arrival time) and answers what the
 * test asks for, per request (status, headers, body, an optional delay). Verifying signatures is left to the
 * caller, with the `standardwebhooks` package as a receiver would.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  method: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
  /** `performance.timeOrigin + performance.now()` at the end of the body, ms. */
  receivedAt: number;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (to make a slow or timing-out endpoint). */
  delayMs?: number;
}

export type Responder = (request: ReceivedWebhook) => ReceiverAnswer;

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`; add a path per endpoint. */
  origin: string;
  received: ReceivedWebhook[];
  /** Replaces how requests are answered (default: 204 at once). */
  respond(responder: Responder): void;
  /** Resolves with the requests matching `match` once there are `count` of them; rejects after `timeoutMs`. */
  waitFor(
    match: (r: ReceivedWebhook) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  responder: Responder = () => ({ status: 204 }),
): Promise<WebhookReceiver> {
  let answer = responder;
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request: ReceivedWebhook = {
        path: req.url ?? "/",
        method: req.method ?? "",
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
        ),
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: performance.timeOrigin + performance.now(),
      };
      received.push(request);
      for (const wake of waiters) wake();
      const { status, headers, body, delayMs } = answer(request);
      const send = () => {
        if (!res.destroyed) res.writeHead(status, headers).end(body);
      };
      if (delayMs) setTimeout(send, delayMs).unref();
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    respond(next) {
      answer = next;
    },
    waitFor(match, count = 1, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.filter(match);
          if (found.length < count) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `expected ${count} matching webhook(s) within ${timeoutMs} ms, got ${received.filter(match).length}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
