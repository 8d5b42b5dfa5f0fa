/**
 * What the dashboard process (dashboard-child.ts, Next.js) asks server.ts, its parent, over Node's IPC channel:
 * the one thing its pages need from the runtime, the user a session cookie belongs to (trpc/page-auth.ts). The
 * parent resolves it with the runtime's session service (`answerSessionQueries`); the child waits at most
 * `SESSION_WAIT_MS` for the answer (`userOfSession`).
 */
import { randomUUID } from "node:crypto";
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

/** The parent's answer: the user (null: no such session), or why there is none. */
type SessionAnswer = { type: "session"; id: string } & (
  | { user: SessionUser | null }
  | { unavailable: true }
  | { failed: string }
);

/** What `userOfSession` found: `unavailable` when the database (or the parent) does not answer. */
export type SessionLookup = { user: SessionUser | null } | { unavailable: true };

const isQuery = (message: unknown): message is SessionQuery =>
  typeof message === "object" &&
  message !== null &&
  (message as SessionQuery).type === "session" &&
  typeof (message as SessionQuery).id === "string" &&
  typeof (message as SessionQuery).token === "string";

/**
 * Parent side: answers the session queries `child` sends with `sessions.resolve`.
 * A database outage is answered `unavailable`; any other failure `failed` (the page then fails as any error).
 */
export function answerSessionQueries(
  child: Pick<NodeJS.Process, "send"> & Pick<NodeJS.EventEmitter, "on">,
  sessions: Pick<Runtime["sessions"], "resolve">,
): void {
  child.on("message", (message: unknown) => {
    if (!isQuery(message)) return;
    const { id, token } = message;
    const reply = (answer: SessionAnswer) => {
      // The child may have gone meanwhile: its successor asks again.
      child.send?.(answer, undefined, {}, () => {});
    };
    sessions.resolve(token).then(
      (resolved) => reply({ type: "session", id, user: resolved?.user ?? null }),
      (error: unknown) =>
        reply(
          isDatabaseUnavailable(error)
            ? { type: "session", id, unavailable: true }
            : { type: "session", id, failed: error instanceof Error ? error.message : String(error) },
        ),
    );
  });
}

const pending = new Map<string, (answer: SessionAnswer) => void>();
let listening = false;

/**
 * Child side: the user of session `token`, asked of the parent. No answer within `SESSION_WAIT_MS` counts as
 * `unavailable`. @throws when the parent could not resolve it for another reason, or when this process has no
 * parent (Next runs only under server.ts).
 */
export function userOfSession(token: string): Promise<SessionLookup> {
  const send = process.send?.bind(process);
  if (!send) return Promise.reject(new Error("the dashboard runs under server.ts only (no parent process)"));
  if (!listening) {
    listening = true;
    process.on("message", (message: unknown) => {
      const answer = message as SessionAnswer;
      if (answer?.type === "session") pending.get(answer.id)?.(answer);
    });
  }
  const id = randomUUID();
  return new Promise<SessionLookup>((resolve, reject) => {
    const timer = setTimeout(() => settle({ type: "session", id, unavailable: true }), SESSION_WAIT_MS);
    function settle(answer: SessionAnswer) {
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
