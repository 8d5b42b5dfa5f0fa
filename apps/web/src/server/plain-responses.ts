/**
 * JSON answers the app's Node server (server.ts) gives itself, for requests that never reach an app
 * (docs/contract.md section 1: JSON on every status): methods no route serves (TRACE, CONNECT, unknown ones),
 * and requests Node's HTTP parser rejects (oversize headers 431, unknown method 501, malformed 400).
 */
import type { Socket } from "node:net";

/** Methods the dashboard, the docs and the REST API serve (Next route handlers and pages). */
export const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const SERVED = new Set(SERVED_METHODS);

/** True when `method` is one server.ts answers itself with 405 instead of handing it to Next. */
export const isUnservedMethod = (method: string | undefined): boolean => !SERVED.has(method ?? "");

const REASONS: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  431: "Request Header Fields Too Large",
  501: "Not Implemented",
};

/** The Error body (docs/interface.md "Error") and headers of a JSON answer with `status`. */
export function plainError(
  status: 400 | 405 | 431 | 501,
  code: string,
  message: string,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ code, message, status });
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
  };
  if (status === 405) headers.Allow = SERVED_METHODS.join(", ");
  return { body, headers };
}

/** 405 `method_not_allowed` for `method`. */
export const methodNotAllowed = (method: string) =>
  plainError(405, "method_not_allowed", `${method} is not allowed here; use ${SERVED_METHODS.join(", ")}.`);

/** Writes a complete HTTP/1.1 response on a raw socket and closes it (parser errors, CONNECT). */
export function writeRaw(socket: Socket, status: 400 | 405 | 431 | 501, code: string, message: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { body, headers } = status === 405 ? methodNotAllowed(message) : plainError(status, code, message);
  const head = Object.entries({ ...headers, Connection: "close" })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\n${head}\r\n${body}`);
}

/** Answers a request Node's parser rejected (the server's `clientError` event). */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "HPE_HEADER_OVERFLOW")
    writeRaw(socket, 431, "header_too_large", "The request headers are too large.");
  else if (error.code === "HPE_INVALID_METHOD")
    writeRaw(socket, 501, "not_implemented", "This server does not implement that method.");
  else if (error.code === "ECONNRESET" || !socket.writable) socket.destroy();
  else writeRaw(socket, 400, "invalid_request", "The request could not be parsed as HTTP.");
}
