/**
 * The dashboard host, in the roles that serve the dashboard (`all`, `dashboard`; docs/operations.md "Roles"):
 * Next.js runs in a child process (next-child/main.ts) that server.ts starts, supervises and proxies the pages
 * and Next's files to (http/dashboard-proxy.ts), so that rendering a page never takes the event loop that serves
 * /v1, and Next's request tracking never runs on /v1's promises (docs/architecture.md "One process, one
 * runtime"). The child listens on a unix socket in a private temporary folder, runs at nice `nice`, and asks
 * this process for the signed-in user of a page (next-child-protocol.ts; answered by `answerSessionQueries`).
 *
 * Supervision: `startDashboard` resolves once the child listens (or throws when it exits or is not ready within
 * `READY_MS`). When the child exits later, the exit is logged, dashboard requests get a 503 with Retry-After
 * (the styled page for page requests) meanwhile, and a new child is started after a back-off (0.5 s, doubling up
 * to 30 s; back to 0.5 s once a child has run for a minute). `stop()` ends it: the IPC channel is closed, on
 * which the child exits, and it is killed if it has not exited within `STOP_MS`. The channel also closes when
 * this process dies, even by SIGKILL, so no child outlives it; the socket folder of a server killed with its
 * child (a process group's SIGKILL) is removed by the next server that starts on the host.
 */
import { type ChildProcess, fork } from "node:child_process";
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { childProcessEnvironment, INSPECTOR_FLAG } from "@petstore/config";
import { AppError } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { isDatabaseUnavailable } from "@petstore/core/errors";
import { createDashboardProxy } from "./http/dashboard-proxy.ts";
import {
  isReady,
  isRecordQuery,
  isSessionQuery,
  type RecordAnswer,
  type RecordKind,
  type SessionAnswer,
} from "./next-child-protocol.ts";

/** How long a child may take from its start to listening (ms): Next's start; in development it compiles too. */
const READY_MS = { production: 60_000, development: 180_000 };
/** How long a proxied request may go without a sign of life from the child (ms): development compiles pages. */
const IDLE_MS = { production: 60_000, development: 300_000 };
const STOP_MS = 5_000;
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A child that ran this long was healthy: the next restart waits the least again. */
const STABLE_MS = 60_000;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface Dashboard {
  /** Proxies a request to the child; `unavailable` answers it while there is no ready child. */
  listener: Listener;
  /** Passes a websocket upgrade to the child (Next's hot reloading; development only). */
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void;
  /** Stops the child and removes its socket folder; no restart after. */
  stop(): Promise<void>;
}

export interface DashboardOptions {
  dev: boolean;
  /** The public port (Next builds its own absolute URLs from it). */
  port: number;
  /** DASHBOARD_NICE: the child's nice value (0 leaves it). */
  nice: number;
  sessions: Pick<Runtime["sessions"], "resolve">;
  /** Whether a record a page's address names exists (`recordsOf`). */
  records?: RecordLookup;
  /** Answers a request while no child is ready, or one the child failed before answering; must end `res`. */
  unavailable: Listener;
  log: (level: "info" | "warn", fields: object, message: string) => void;
  /**
   * Takes each line the child writes to stdout (Next's own start-up lines), so that they can be logged as JSON;
   * absent, the child writes to this process's stdout.
   */
  output?: (line: string) => void;
}

/** The lookup of each kind: resolves when the record exists. @throws AppError not_found when it does not. */
const LOOKUPS = {
  apiKey: (rt, id) => rt.apiKeys.get(id),
  webhookEndpoint: (rt, id) => rt.webhooks.get(id),
  account: (rt, id) => rt.accounts.get(id),
} satisfies Record<
  RecordKind,
  (rt: Pick<Runtime, "apiKeys" | "webhooks" | "accounts">, id: string) => unknown
>;

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
  sessions: Pick<Runtime["sessions"], "resolve">,
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
    if (!isSessionQuery(message)) return;
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

/** The child's script: next-child/main.ts under tsx (`--dev`), or the bundle's dashboard-child.js beside this one. */
function childScript(): string {
  return path.extname(import.meta.filename) === ".ts"
    ? path.join(import.meta.dirname, "next-child", "main.ts")
    : path.join(import.meta.dirname, "dashboard-child.js");
}

const FOLDER_PREFIX = "petstore-dashboard-";

/**
 * Removes the socket folders of servers that no longer run: a folder is named after its server's pid
 * (`petstore-dashboard-<pid>-*`), and one whose server was killed outright with its process group (SIGKILL, out of
 * memory) had no process left to remove it.
 */
function removeStaleFolders(tmp: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(tmp).filter((name) => name.startsWith(FOLDER_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^petstore-dashboard-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || processRuns(pid)) continue;
    fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
  }
}

/** Whether a process `pid` exists (EPERM: it does, under another user). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Starts the dashboard child and resolves once it serves. @throws when it exits or is not ready in time. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const mode = options.dev ? "development" : "production";
  removeStaleFolders(os.tmpdir());
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
  const socketPath = path.join(folder, "next.sock");
  const proxy = createDashboardProxy({
    socketPath,
    idleTimeoutMs: IDLE_MS[mode],
    unavailable: options.unavailable,
  });
  let child: ChildProcess | undefined;
  let ready = false;
  let stopping = false;
  let supervising = false;
  let restartMs = RESTART_MIN_MS;
  let restartTimer: NodeJS.Timeout | undefined;

  function lowerPriority(pid: number | undefined) {
    if (options.nice <= 0 || pid === undefined) return;
    try {
      os.setPriority(pid, Math.max(os.getPriority(pid), options.nice));
    } catch (error) {
      options.log("warn", { nice: options.nice, error: String(error) }, "could not lower CPU priority");
    }
  }

  /** Starts a child; resolves when it listens, rejects when it exits first or is not ready in time. */
  function spawn(): Promise<void> {
    const args = ["--socket", socketPath, "--port", String(options.port), "--nice", String(options.nice)];
    const started = fork(childScript(), options.dev ? [...args, "--dev"] : args, {
      stdio: ["ignore", options.output ? "pipe" : "inherit", "inherit", "ipc"],
      // The inspector stays the server's (`--inspect`, or NODE_OPTIONS): the child would fail to open its port.
      execArgv: process.execArgv.filter((flag) => !INSPECTOR_FLAG.test(flag)),
      env: childProcessEnvironment() as NodeJS.ProcessEnv,
    });
    child = started;
    const output = options.output;
    if (output && started.stdout)
      createInterface({ input: started.stdout }).on("line", (line) => output(line));
    // A failed spawn, or a message the channel could not take; an exit, if any, is handled below.
    started.on("error", (error) => options.log("warn", { error: String(error) }, "dashboard process error"));
    lowerPriority(started.pid);
    answerSessionQueries(started, options.sessions, options.records);
    let readyAt: number | undefined;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`the dashboard process did not start within ${READY_MS[mode]} ms`));
        started.kill("SIGKILL");
      }, READY_MS[mode]);
      started.on("message", (message: unknown) => {
        if (!isReady(message) || readyAt !== undefined) return;
        clearTimeout(timer);
        readyAt = Date.now();
        ready = true;
        resolve();
      });
      started.once("exit", (code, signal) => {
        clearTimeout(timer);
        if (child === started) {
          child = undefined;
          ready = false;
        }
        reject(new Error(`the dashboard process exited (${signal ?? `code ${code}`}) before it served`));
        if (stopping || !supervising) return;
        if (readyAt !== undefined && Date.now() - readyAt >= STABLE_MS) restartMs = RESTART_MIN_MS;
        const delay = restartMs;
        restartMs = Math.min(restartMs * 2, RESTART_MAX_MS);
        options.log(
          "warn",
          { pid: started.pid, code, signal, restartInMs: delay },
          "dashboard process exited; restarting it",
        );
        restartTimer = setTimeout(() => {
          spawn().then(
            () => options.log("info", { pid: child?.pid }, "dashboard process restarted"),
            () => {},
          );
        }, delay);
      });
    });
  }

  try {
    await spawn();
  } catch (error) {
    child?.kill("SIGKILL");
    fs.rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  // From now on an exit is restarted: the first start's failure is the caller's.
  supervising = true;

  return {
    listener(req, res) {
      if (ready) proxy.web(req, res);
      else options.unavailable(req, res);
    },
    upgrade(req, socket, head) {
      if (ready) proxy.upgrade(req, socket, head);
      else socket.destroy();
    },
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      proxy.close();
      const running = child;
      if (running && running.exitCode === null && running.signalCode === null) {
        const exited = new Promise((resolve) => running.once("exit", resolve));
        if (running.connected) running.disconnect();
        else running.kill("SIGKILL");
        const timer = setTimeout(() => running.kill("SIGKILL"), STOP_MS);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
