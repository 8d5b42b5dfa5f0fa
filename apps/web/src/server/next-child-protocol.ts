/**
 * The messages of the IPC channel between server.ts (dashboard.ts) and the Next child (next-child/): the child's
 * `ready`, and its questions with the parent's answers (the user of a session, whether a page's record exists).
 */
import type { SessionUser } from "@petstore/core";

/** How long a page waits for the parent's answer (ms): beyond the database's connect and statement bounds. */
export const SESSION_WAIT_MS = 5000;

/** The child's word that it listens. */
export interface ReadyMessage {
  type: "ready";
}

/** The child's question: the user of session `token`. */
export interface SessionQuery {
  type: "session";
  id: string;
  token: string;
}

/** The parent's answer: the user (null: no such session), or why there is none. */
export type SessionAnswer = { type: "session"; id: string } & (
  | { user: SessionUser | null }
  | { unavailable: true }
  | { failed: string }
);

/** The records a dashboard page's address names. */
export type RecordKind = "apiKey" | "webhookEndpoint" | "account";

const RECORD_KINDS: readonly string[] = ["apiKey", "webhookEndpoint", "account"] satisfies RecordKind[];

/** The child's question whether record `recordId` of `kind` exists. */
export interface RecordQuery {
  type: "record";
  id: string;
  kind: RecordKind;
  recordId: string;
}

/** The parent's answer: whether it exists, or why that is not known. */
export type RecordAnswer = { type: "record"; id: string } & (
  | { exists: boolean }
  | { unavailable: true }
  | { failed: string }
);

const typed = (message: unknown, type: string): message is Record<string, unknown> =>
  typeof message === "object" && message !== null && (message as { type?: unknown }).type === type;

export const isReady = (message: unknown): message is ReadyMessage => typed(message, "ready");

export const isSessionQuery = (message: unknown): message is SessionQuery =>
  typed(message, "session") && typeof message.id === "string" && typeof message.token === "string";

export const isRecordQuery = (message: unknown): message is RecordQuery =>
  typed(message, "record") &&
  typeof message.id === "string" &&
  RECORD_KINDS.includes(message.kind as string) &&
  typeof message.recordId === "string";

/** Whether `message` is one of the parent's answers (the child matches it to its question by `id`). */
export const isAnswer = (message: unknown): message is SessionAnswer | RecordAnswer =>
  (typed(message, "session") || typed(message, "record")) && typeof message.id === "string";
