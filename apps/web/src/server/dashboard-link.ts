/**
 * What the dashboard process (dashboard-child.ts, Next.js) asks server.ts, its parent, over Node's IPC channel:
 * what its pages need from the runtime: the user a session cookie belongs to (trpc/page-auth.ts), and whether the
 * record a detail page's address names exists (an API key, a webhook endpoint, a consumer account: a page for none
 * is the dashboard's 404). The parent resolves them with the runtime's services (`answerSessionQueries`); the child waits at most
 * `SESSION_WAIT_MS` for an answer (`userOfSession`, `recordExists`).
 */
import { randomUUID } from "node:crypto";
import { AppError } from "@petstore/contracts";
import type { Runtime, SessionUser } from "@petstore/core";
import { isDatabaseUnavailable } from "@petstore/core/errors";

/** How long a page waits for the parent's answer (ms): beyond the database's connect and statement bounds. */
export const SESSION_WAIT_MS = 5000;

/** The child's question. */
interface SessionQuery {
  type: "session";
  id: string;
  token: string;
}

/**
 * The parent's answer: the user (null: no such session, with `ended` when it was ended on its person's behalf), or
 * why there is none.
 */
type SessionAnswer = { type: "session"; id: string } & (
  | { user: SessionUser | null; ended?: "removed" }
  | { unavailable: true }
  | { failed: string }
);

/** The records a dashboard page's address names. */
export type RecordKind = "apiKey" | "webhookEndpoint" | "account";

const RECORD_KINDS: readonly string[] = ["apiKey", "webhookEndpoint", "account"] satisfies RecordKind[];

/** The lookup of each kind: resolves when the record exists. @throws AppError not_found when it does not. */
const LOOKUPS = {
  apiKey: (rt, id) => rt.apiKeys.get(id),
  webhookEndpoint: (rt, id) => rt.webhooks.get(id),
  account: (rt, id) => rt.accounts.get(id),
} satisfies Record<
  RecordKind,
  (rt: Pick<Runtime, "apiKeys" | "webhooks" | "accounts">, id: string) => unknown
>;

/** The child's question whether record `recordId` of `kind` exists. */
interface RecordQuery {
  type: "record";
  id: string;
  kind: RecordKind;
  recordId: string;
}

/** The parent's answer: whether it exists, or why that is not known. */
type RecordAnswer = { type: "record"; id: string } & (
  | { exists: boolean }
  | { unavailable: true }
  | { failed: string }
);

/**
 * Whether a record exists (parent side, `recordsOf`): resolves false for none. @throws what the lookup throws
 * (a database outage included).
 */
export type RecordLookup = (kind: RecordKind, id: string) => Promise<boolean>;

/** The parent's record lookup on runtime `rt`'s services: a `not_found` AppError is false. */
export function recordsOf(rt: Pick<Runtime, "apiKeys" | "webhooks" | "accounts">): RecordLookup {
  return async (kind, id) => {
    try {
      await LOOKUPS[kind](rt, id);
      return true;
    } catch (error) {
      if (AppError.is(error) && error.code === "not_found") return false;
      throw error;
    }
  };
}

/**
 * What `userOfSession` found: `unavailable` when the database (or the parent) does not answer; `ended` says why a
 * session that is no more was ended (sessions' `endedReason`).
 */
export type SessionLookup = { user: SessionUser | null; ended?: "removed" } | { unavailable: true };

const isQuery = (message: unknown): message is SessionQuery =>
  typeof message === "object" &&
  message !== null &&
  (message as SessionQuery).type === "session" &&
  typeof (message as SessionQuery).id === "string" &&
  typeof (message as SessionQuery).token === "string";

const isRecordQuery = (message: unknown): message is RecordQuery =>
  typeof message === "object" &&
  message !== null &&
  (message as RecordQuery).type === "record" &&
  typeof (message as RecordQuery).id === "string" &&
  RECORD_KINDS.includes((message as RecordQuery).kind) &&
  typeof (message as RecordQuery).recordId === "string";

const failure = (error: unknown) =>
  isDatabaseUnavailable(error)
    ? ({ unavailable: true } as const)
    : { failed: error instanceof Error ? error.message : String(error) };

/**
 * Parent side: answers the session queries `child` sends with `sessions.resolve`, and its record queries with
 * `records` (without it, every record exists). A database outage is answered `unavailable`; any other failure
 * `failed` (the page then fails as any error).
 */
export function answerSessionQueries(
  child: Pick<NodeJS.Process, "send"> & Pick<NodeJS.EventEmitter, "on">,
  sessions: Pick<Runtime["sessions"], "resolve" | "endedReason">,
  records: RecordLookup = async () => true,
): void {
  child.on("message", (message: unknown) => {
    if (isRecordQuery(message)) {
      const { id, kind, recordId } = message;
      const reply = (answer: RecordAnswer) => child.send?.(answer, undefined, {}, () => {});
      records(kind, recordId).then(
        (exists) => reply({ type: "record", id, exists }),
        (error: unknown) => reply({ type: "record", id, ...failure(error) }),
      );
      return;
    }
    if (!isQuery(message)) return;
    const { id, token } = message;
    const reply = (answer: SessionAnswer) => {
      // The child may have gone meanwhile: its successor asks again.
      child.send?.(answer, undefined, {}, () => {});
    };
    const lookup = async () => {
      const resolved = await sessions.resolve(token);
      if (resolved) return { user: resolved.user };
      const ended = await sessions.endedReason(token);
      return { user: null, ...(ended ? { ended } : {}) };
    };
    lookup().then(
      (found) => reply({ type: "session", id, ...found }),
      (error: unknown) =>
        reply(
          isDatabaseUnavailable(error)
            ? { type: "session", id, unavailable: true }
            : { type: "session", id, failed: error instanceof Error ? error.message : String(error) },
        ),
    );
  });
}

const pending = new Map<string, (answer: SessionAnswer | RecordAnswer) => void>();
let listening = false;

/** Routes the parent's answers to the questions waiting for them (once per process). */
function listen(): void {
  if (listening) return;
  listening = true;
  process.on("message", (message: unknown) => {
    const answer = message as SessionAnswer | RecordAnswer;
    if (answer?.type === "session" || answer?.type === "record") pending.get(answer.id)?.(answer);
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
      else
        resolve(
          "user" in answer
            ? { user: answer.user, ...(answer.ended ? { ended: answer.ended } : {}) }
            : { unavailable: true },
        );
    }
    pending.set(id, settle);
    send({ type: "session", id, token } satisfies SessionQuery, undefined, {}, (error: Error | null) => {
      if (error) settle({ type: "session", id, unavailable: true });
    });
  });
}
