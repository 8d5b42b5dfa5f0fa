/**
 * The dashboard process's question to server.ts (src/server/next-child-protocol.ts) over a real IPC channel: a forked
 * process asks as the pages do, this process answers with a session service that knows one token, cannot reach
 * its database for another and fails otherwise for a third: the child gets the user, `unavailable` (the page
 * then sends the browser to the unavailable page), an error, and null for a token nobody knows; asked whether an
 * API key exists (a detail page's 404), it gets true, false, and `unavailable` behind an outage.
 */
import { fork } from "node:child_process";
import path from "node:path";
import type { Runtime } from "@petstore/core";
import { expect, it } from "vitest";
import { answerSessionQueries, type RecordLookup } from "../../src/server/dashboard.ts";

const USER = { id: "u1", email: "ada@example.test", name: "Ada", role: "admin" as const };

const sessions: Pick<Runtime["sessions"], "resolve"> = {
  resolve: async (token) => {
    if (token === "known")
      return { sessionId: "s1", user: USER } as Awaited<ReturnType<Runtime["sessions"]["resolve"]>>;
    if (token === "down")
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    if (token === "broken") throw new Error("boom");
    return undefined;
  },
};

/** The parent's record lookup: one key exists, one does not, the third is behind an outage. */
const records: RecordLookup = async (_kind, id) => {
  if (id === "key-down")
    throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
  return id === "key-known";
};

it("answers the dashboard process's questions: the user, unavailable, a failure, none; whether a record exists", async () => {
  const child = fork(
    path.join(import.meta.dirname, "dashboard-link-child.ts"),
    ["known", "down", "broken", "nobody"],
    {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  answerSessionQueries(child, sessions, records);
  const results = await new Promise<unknown>((resolve, reject) => {
    child.on("message", (message: { type?: string; results?: unknown }) => {
      if (message?.type === "results") resolve(message.results);
    });
    child.once("exit", (code) => reject(new Error(`child exited with ${code} before answering`)));
  });
  expect(results).toEqual([
    { user: USER },
    { unavailable: true },
    { error: "session lookup failed: boom" },
    { user: null },
    true,
    false,
    "unavailable",
  ]);
});
