/**
 * The Next child's questions to server.ts over the IPC channel (next-child-protocol.ts): the user a session cookie
 * belongs to (page-auth.ts), and whether the record a detail page's address names exists. Each waits at most
 * `SESSION_WAIT_MS` for the answer.
 */
import { randomUUID } from "node:crypto";
import type { SessionUser } from "@petstore/core";
import {
  isAnswer,
  type RecordAnswer,
  type RecordKind,
  type RecordQuery,
  SESSION_WAIT_MS,
  type SessionAnswer,
  type SessionQuery,
} from "../next-child-protocol";

/** What `userOfSession` found: `unavailable` when the database (or the parent) does not answer. */
export type SessionLookup = { user: SessionUser | null } | { unavailable: true };

const pending = new Map<string, (answer: SessionAnswer | RecordAnswer) => void>();
let listening = false;

/** Routes the parent's answers to the questions waiting for them (once per process). */
function listen(): void {
  if (listening) return;
  listening = true;
  process.on("message", (message: unknown) => {
    if (isAnswer(message)) pending.get(message.id)?.(message);
  });
}

/**
 * Child side: whether record `recordId` of `kind` exists, asked of the parent; `unavailable` when the database
 * (or the parent, within `SESSION_WAIT_MS`) does not answer. @throws when the parent could not look it up for
 * another reason, or when this process has no parent.
 */
export function recordExists(kind: RecordKind, recordId: string): Promise<boolean | "unavailable"> {
  const send = process.send?.bind(process);
  if (!send) return Promise.reject(new Error("the dashboard runs under server.ts only (no parent process)"));
  listen();
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => settle({ type: "record", id, unavailable: true }), SESSION_WAIT_MS);
    function settle(answer: SessionAnswer | RecordAnswer) {
      clearTimeout(timer);
      pending.delete(id);
      if ("failed" in answer) reject(new Error(`record lookup failed: ${answer.failed}`));
      else resolve("exists" in answer ? answer.exists : "unavailable");
    }
    pending.set(id, settle);
    send(
      { type: "record", id, kind, recordId } satisfies RecordQuery,
      undefined,
      {},
      (error: Error | null) => {
        if (error) settle({ type: "record", id, unavailable: true });
      },
    );
  });
}

/**
 * Child side: the user of session `token`, asked of the parent. No answer within `SESSION_WAIT_MS` counts as
 * `unavailable`. @throws when the parent could not resolve it for another reason, or when this process has no
 * parent (Next runs only under server.ts).
 */
export function userOfSession(token: string): Promise<SessionLookup> {
  const send = process.send?.bind(process);
  if (!send) return Promise.reject(new Error("the dashboard runs under server.ts only (no parent process)"));
  listen();
  const id = randomUUID();
  return new Promise<SessionLookup>((resolve, reject) => {
    const timer = setTimeout(() => settle({ type: "session", id, unavailable: true }), SESSION_WAIT_MS);
    function settle(answer: SessionAnswer | RecordAnswer) {
      clearTimeout(timer);
      pending.delete(id);
      if ("failed" in answer) reject(new Error(`session lookup failed: ${answer.failed}`));
      else resolve("user" in answer ? { user: answer.user } : { unavailable: true });
    }
    pending.set(id, settle);
    send({ type: "session", id, token } satisfies SessionQuery, undefined, {}, (error: Error | null) => {
      if (error) settle({ type: "session", id, unavailable: true });
    });
  });
}
