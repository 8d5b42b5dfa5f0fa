/**
 * What the app's Node server answers itself, for requests that never reach an app (docs/contract.md section 1:
 * JSON on every status): methods no route serves (TRACE, CONNECT, unknown ones), and requests Node's HTTP
 * parser rejects (oversize headers 431, too slow 408, unknown method 501, malformed 400). Rendered by
 * http/error-answer.ts like every error answer.
 */
import type { Socket } from "node:net";
import { problems, SERVED_METHODS } from "@petstore/contracts";
import { writeRawErrorAnswer } from "./http/error-answer.ts";

const SERVED = new Set<string>(SERVED_METHODS);

/** True when `method` is one no route serves: server.ts answers it with 405 itself. */
export const isUnservedMethod = (method: string | undefined): boolean => !SERVED.has(method ?? "");

/** 405 `method_not_allowed` for a method no route serves. */
export const unservedMethod = (method: string) => problems.methodNotAllowed(method, SERVED_METHODS);

/** Answers a request Node's parser rejected (the server's `clientError` event), then closes the connection. */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || !socket.writable) socket.destroy();
  else if (error.code === "HPE_HEADER_OVERFLOW") writeRawErrorAnswer(socket, problems.headerTooLarge());
  else if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") writeRawErrorAnswer(socket, problems.requestTimeout());
  else if (error.code === "HPE_INVALID_METHOD") writeRawErrorAnswer(socket, problems.methodNotImplemented());
  else writeRawErrorAnswer(socket, problems.malformedRequest());
}
