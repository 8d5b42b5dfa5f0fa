/**
 * The one renderer of the HTTP surface's error answers (docs/contract.md section 1): a `Problem` (an AppError, or
 * one of contracts' standard problems) and a request id become the status, the headers every JSON answer carries
 * and the Error body. The REST app (rest/respond.ts), the app's Node server (its own refusals, and requests
 * Node's parser rejects), the probes and /metrics, and the dashboard API's refusals before tRPC runs
 * (trpc/errors.ts, in tRPC's envelope) all answer through it.
 */
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { errorBody, errorStatusByCode, type Problem } from "@petstore/contracts";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request id of an answer: the client's `X-Request-Id` when it is a sane token (section 1), else a new one. */
export function requestIdOf(given: string | string[] | null | undefined): string {
  return typeof given === "string" && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** The headers every answer of the API surface carries, with or without a body (an OPTIONS' 204). */
export function answerHeaders(requestId: string): Record<string, string> {
  return { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "X-Request-Id": requestId };
}

/** The headers every JSON answer of the API surface carries, besides its own: `answerHeaders` and the type. */
export function jsonHeaders(requestId: string): Record<string, string> {
  return {
    "Content-Type": JSON_CONTENT_TYPE,
    "Cache-Control": "no-store",
    // Error messages echo what the client sent (a path, a value): never let a browser sniff them as HTML.
    "X-Content-Type-Options": "nosniff",
    "X-Request-Id": requestId,
  };
}

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Status, headers (the problem's own, then the common ones) and JSON Error body of `problem`. */
export function errorAnswer(problem: Problem, requestId: string): ErrorAnswer {
  return {
    status: errorStatusByCode[problem.code],
    headers: Object.assign({}, problem.headers, jsonHeaders(requestId)),
    body: JSON.stringify(errorBody(problem)),
  };
}

/** `problem` as a web Response; `given` is the request's X-Request-Id header, used when sane. */
export function errorResponse(problem: Problem, given?: string | null): Response {
  const { status, headers, body } = errorAnswer(problem, requestIdOf(given));
  return new Response(body, { status, headers });
}

/** Answers `res` with `problem` (the request's own X-Request-Id when sane). */
export function writeErrorAnswer(
  res: ServerResponse,
  problem: Problem,
  requestHeaders: IncomingHttpHeaders = {},
): void {
  const { status, headers, body } = errorAnswer(problem, requestIdOf(requestHeaders["x-request-id"]));
  headers["Content-Length"] = String(Buffer.byteLength(body));
  res.writeHead(status, headers).end(res.req?.method === "HEAD" ? undefined : body);
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
  501: "Not Implemented",
};

// The status each socket was last answered with on the raw socket: a request whose body Node's parser gave up
// on (408) is still in the app, which counts and logs the status that was sent, not the one it would answer.
const rawAnswers = new WeakMap<Socket, number>();

/** The status `writeRawErrorAnswer` sent on `socket`, if it did: what the client got, whatever the app answers. */
export function rawAnswerStatus(socket: Socket | undefined | null): number | undefined {
  return socket ? rawAnswers.get(socket) : undefined;
}

/** Writes `problem` as a complete HTTP/1.1 answer on a raw socket and closes it (parser errors, CONNECT). */
export function writeRawErrorAnswer(socket: Socket, problem: Problem): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { status, headers, body } = errorAnswer(problem, randomUUID());
  rawAnswers.set(socket, status);
  const head = Object.entries({
    ...headers,
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\n${head}\r\n${body}`);
}
