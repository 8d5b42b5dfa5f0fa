/**
 * One HTTP attempt of a webhook (docs/contract.md section 6, "Delivery, retries and ordering"): a POST of the JSON
 * body, signed per Standard Webhooks with the `standardwebhooks` reference implementation (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, one signature per secret,
 * space separated), `Content-Type: application/json` and a `User-Agent` naming the service. The whole attempt
 * (connect, TLS, answer, body) is bounded by WEBHOOKS_TIMEOUT_MS; redirects are not followed (a 3xx is a failure);
 * at most 1 KiB of the answer's body is read, for the log, which also keeps the request's headers as sent.
 * Connections go through keep-alive agents whose `lookup` refuses non-public addresses (targets.ts). A kept-alive
 * connection the receiver closed as the request went out (reset, or closed, before any byte of an answer) does not
 * cost the delivery a retry step: the request is sent again at once, within the same bound, on a new connection
 * (Node's `reusedSocket` pattern).
 * With tracing on (docs/operations.md "Tracing"), each attempt is a CLIENT span `POST`, the root of a trace of its
 * own (deliveries run after, and apart from, the request that caused the event), and the request carries its
 * `traceparent` (W3C Trace Context), so the receiver's spans join that trace.
 */
import http from "node:http";
import https from "node:https";
import { type Attributes, context, propagation, SpanStatusCode } from "@opentelemetry/api";
import { LRUCache } from "lru-cache";
import { Webhook } from "standardwebhooks";
import { inRootSpan } from "../tracing.ts";
import { blockedLiteral, guardedLookup, NOT_REACHED } from "./targets.ts";

/** Longest response excerpt kept, bytes. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface OutgoingMessage {
  url: string;
  /** The `webhook-id`, the same for every attempt and replay of the message. */
  messageId: string;
  /** The exact text sent and signed. */
  body: string;
  /** `whsec_…` secrets to sign with (the current one first). */
  secrets: string[];
}

export interface AttemptResult {
  startedAt: Date;
  durationMs: number;
  /** HTTP status, or undefined when no answer came. */
  status?: number;
  /** `Retry-After` of the answer, as sent. */
  retryAfter?: string;
  /** Why no answer came (timeout, refused, blocked address, TLS error …). */
  error?: string;
  /** The first 1 KiB of the answer's body (UTF-8, invalid bytes replaced). */
  excerpt?: string;
  /**
   * The request's headers as sent (lower-case names; Node's `host` included), for the delivery log; undefined when
   * nothing was sent (the address or scheme was refused, the connection failed).
   */
  requestHeaders?: Record<string, string>;
}

export interface Sender {
  send(message: OutgoingMessage, signal?: AbortSignal): Promise<AttemptResult>;
  /** Closes the pooled connections. */
  close(): void;
}

/** Signers by secret, the 1,000 last used: decoding a secret costs as much as a signature. */
const signers = new LRUCache<string, Webhook>({ max: 1_000 });

/** The `webhook-signature` header: `v1,<sig>` per secret, space separated. */
export function signatureHeader(secrets: string[], messageId: string, at: Date, body: string): string {
  return secrets
    .map((secret) => {
      let signer = signers.get(secret);
      if (!signer) {
        signer = new Webhook(secret);
        signers.set(secret, signer);
      }
      return signer.sign(messageId, at, body);
    })
    .join(" ");
}

/**
 * @param options.timeoutMs bound of one attempt; `allowPrivateTargets` skips the address checks;
 *   `userAgent` names the service; `lookup` replaces the guarded DNS look-up (tests).
 */
export function createSender(options: {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  userAgent: string;
  lookup?: ReturnType<typeof guardedLookup>;
}): Sender {
  const lookup = options.allowPrivateTargets ? undefined : (options.lookup ?? guardedLookup());
  const agentOptions = { keepAlive: true, maxSockets: 64, ...(lookup ? { lookup } : {}) };
  const agents = { "http:": new http.Agent(agentOptions), "https:": new https.Agent(agentOptions) };
  // For the one immediate second exchange after a reused connection was reset: a connection of its own.
  const freshOptions = { ...agentOptions, keepAlive: false };
  const freshAgents = { "http:": new http.Agent(freshOptions), "https:": new https.Agent(freshOptions) };
  // Endpoint URLs are few and each is called many times: parsed once (the 1,000 last used).
  const urls = new LRUCache<string, URL>({ max: 1_000 });
  const parse = (raw: string) => {
    let url = urls.get(raw);
    if (!url) {
      url = new URL(raw);
      urls.set(raw, url);
    }
    return url;
  };

  const untraced: Sender = {
    async send(message, signal) {
      const startedAt = new Date();
      const started = performance.now();
      const done = (result: Omit<AttemptResult, "startedAt" | "durationMs">): AttemptResult => ({
        startedAt,
        durationMs: Math.round(performance.now() - started),
        ...result,
      });
      const url = parse(message.url);
      const blocked = blockedLiteral(url, options.allowPrivateTargets);
      if (blocked) return done({ error: blocked.message });
      if (url.protocol !== "https:" && !(options.allowPrivateTargets && url.protocol === "http:"))
        return done({ error: "the URL does not use https" });
      const body = Buffer.from(message.body);
      const request = url.protocol === "https:" ? https.request : http.request;
      const protocol = url.protocol as "http:" | "https:";
      const headers = {
        "content-type": "application/json",
        "content-length": body.length,
        "user-agent": options.userAgent,
        "webhook-id": message.messageId,
        "webhook-timestamp": String(Math.floor(startedAt.getTime() / 1000)),
        "webhook-signature": signatureHeader(message.secrets, message.messageId, startedAt, message.body),
      };
      // `traceparent` of the attempt's span (send below): a no-op while tracing is off.
      propagation.inject(context.active(), headers);
      let timedOut = false;
      let stopped = false;
      let current: http.ClientRequest | undefined;
      let requestHeaders: Record<string, string> | undefined;
      // One timer bounds the whole attempt (connect, TLS, answer, body, and a second exchange); a stop cuts it too.
      const timer = setTimeout(() => {
        timedOut = true;
        current?.destroy(new Error("timeout"));
      }, options.timeoutMs);
      const stopError = () => Object.assign(new Error("stopped"), { name: "AbortError" });
      const cut = () => {
        stopped = true;
        current?.destroy(stopError());
      };
      if (signal?.aborted) cut();
      else signal?.addEventListener("abort", cut, { once: true });
      const exchange = (agent: http.Agent) =>
        new Promise<{ status: number; retryAfter?: string; excerpt: string }>((resolve, reject) => {
          const req = request(url, { method: "POST", agent, headers });
          current = req;
          // Once the request is on the wire: ours, the trace context, and the `host` Node adds (not `connection`,
          // which Node writes with the first bytes as the agent decides).
          const sent = () => {
            requestHeaders ??= headersOf(req);
          };
          req.once("finish", sent);
          if (stopped) req.destroy(stopError());
          else if (timedOut) req.destroy(new Error("timeout"));
          let answered = false;
          req.once("error", (error: NodeJS.ErrnoException) => {
            // A kept-alive connection the receiver closed as this request went out: reset (or closed, "socket
            // hang up", also ECONNRESET; EPIPE when the close came before the write) before any byte of an answer.
            reject(
              req.reusedSocket && !answered && (error.code === "ECONNRESET" || error.code === "EPIPE")
                ? new StaleConnectionError(error)
                : error,
            );
          });
          req.once("response", (res) => {
            answered = true;
            sent();
            const chunks: Buffer[] = [];
            let size = 0;
            const finish = () => {
              const retryAfter = res.headers["retry-after"];
              resolve({
                status: res.statusCode ?? 0,
                ...(typeof retryAfter === "string" ? { retryAfter } : {}),
                // UTF-8 with invalid bytes replaced, and NUL too: PostgreSQL text cannot hold it.
                excerpt: Buffer.concat(chunks)
                  .subarray(0, RESPONSE_EXCERPT_BYTES)
                  .toString("utf8")
                  .replaceAll("\u0000", "\uFFFD"),
              });
            };
            res.on("data", (chunk: Buffer) => {
              chunks.push(chunk);
              size += chunk.length;
              // Enough for the log: the rest is not read, and the connection is not reused.
              if (size >= RESPONSE_EXCERPT_BYTES) {
                res.destroy();
                finish();
              }
            });
            res.once("end", finish);
            res.once("error", reject);
          });
          req.end(body);
        });
      try {
        let answer: Awaited<ReturnType<typeof exchange>>;
        try {
          answer = await exchange(agents[protocol]);
        } catch (error) {
          if (!(error instanceof StaleConnectionError)) throw error;
          // Sent again at once, on a new connection, rather than at the next retry step: the reset came before
          // any answer. The receiver may still have read the first one; Standard Webhooks receivers deduplicate
          // by `webhook-id`, which is the same.
          answer = await exchange(freshAgents[protocol]);
        }
        return done({ ...answer, ...(requestHeaders ? { requestHeaders } : {}) });
      } catch (error) {
        return done({
          error: describe(error, timedOut, options.timeoutMs),
          ...(requestHeaders ? { requestHeaders } : {}),
        });
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", cut);
      }
    },
    close() {
      for (const agent of [...Object.values(agents), ...Object.values(freshAgents)]) agent.destroy();
    },
  };
  return {
    send(message, signal) {
      return inRootSpan("POST", attemptAttributes(message.url), async (span) => {
        const result = await untraced.send(message, signal);
        if (result.status !== undefined) span.setAttribute("http.response.status_code", result.status);
        if (result.status === undefined || result.status >= 400) {
          span.setAttribute("error.type", result.status === undefined ? "_OTHER" : String(result.status));
          span.setStatus({ code: SpanStatusCode.ERROR, ...(result.error ? { message: result.error } : {}) });
        }
        return result;
      });
    },
    close: untraced.close,
  };
}

/**
 * The HTTP client span attributes of an attempt to `raw` (opentelemetry.io/docs/specs/semconv/http/http-spans/):
 * `url.full` without user information and with the query's values redacted (a receiver may put a token there).
 */
function attemptAttributes(raw: string): Attributes {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { "http.request.method": "POST" };
  }
  url.username = "";
  url.password = "";
  for (const name of new Set(url.searchParams.keys())) url.searchParams.set(name, "REDACTED");
  return {
    "http.request.method": "POST",
    "url.full": url.href,
    "server.address": url.hostname,
    "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
  };
}

/** The headers set on `req`, by lower-case name, each value as one string (a list joined by ", "). */
function headersOf(req: http.ClientRequest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(req.getHeaders()).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(", ") : String(value),
    ]),
  );
}

/** A kept-alive connection reset before any byte of an answer: the request is sent again on a new one. */
class StaleConnectionError extends Error {
  constructor(readonly reset: NodeJS.ErrnoException) {
    super(reset.message);
    this.name = "StaleConnectionError";
  }
}

/** A short sentence for the log about why an attempt got no answer. */
function describe(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${timeoutMs / 1000} s`;
  const e = (error instanceof StaleConnectionError ? error.reset : error) as NodeJS.ErrnoException;
  if (e?.name === "AbortError") return "stopped: the server was shutting down";
  if (e?.name === "BlockedAddressError") return e.message;
  if (e?.code === "ECONNREFUSED") return "connection refused";
  if (e?.code === "ENOTFOUND" || e?.code === "EAI_AGAIN") return NOT_REACHED;
  if (e?.code === "ECONNRESET") return "the connection was reset";
  return (e?.message ? `${e.code ? `${e.code}: ` : ""}${e.message}` : String(error))
    .slice(0, 300)
    .replaceAll("\u0000", "\uFFFD");
}
