/**
 * The dashboard process's question to server.ts (src/server/dashboard-link.ts) over a real IPC channel: a forked
 * process asks as the pages do, this process answers with a session service that knows one token, cannot reach
 * its database for another and fails otherwise for a third: the child gets the user, `unavailable` (the page
 * then sends the browser to the unavailable page), an error, and null for a token nobody knows.
 */
import { fork } from "node:child_process";
import path from "node:path";
import type { Runtime } from "@petstore/core";
import { expect, it } from "vitest";
import { answerSessionQueries } from "../../src/server/dashboard-link.ts";

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

it("answers the dashboard process's session questions: the user, unavailable, a failure, none", async () => {
  const child = fork(
    path.join(import.meta.dirname, "dashboard-link-child.ts"),
    ["known", "down", "broken", "nobody"],
    {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  answerSessionQueries(child, sessions);
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
  ]);
});
