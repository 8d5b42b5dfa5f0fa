/**
 * The production server (`node dist/server.js` over the `next build` output) as a child process: build when
 * there is none, start on a port (waiting until /readyz answers), signal, stop; and one-shot runs to an exit.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { sleep } from "@petstore/core/testing";
import { openTestDatabase, type TestDatabase } from "../support/database.ts";

/** apps/web */
export const WEB_DIR = path.resolve(import.meta.dirname, "../..");
const TSX_CLI = createRequire(import.meta.url).resolve("tsx/cli");

const BUILD_ID = path.join(WEB_DIR, ".next", "BUILD_ID");
/** The production server's bundle (scripts/build-server.mjs). */
export const SERVER_BUNDLE = "dist/server.js";
/** The production folder (scripts/production-folder.mjs), absolute. */
export const PRODUCTION_FOLDER = path.join(WEB_DIR, "dist", "production");

/**
 * How `npm run start:api` runs the API role (apps/web/package.json), for the tests and benches that run that role
 * as it is deployed: the environment it sets (`env`, PETSTORE_SERVE=api among it) and its Node options
 * (`nodeArgs`). @throws when the script no longer has the `NAME=value ... exec node <options> dist/server.js` shape.
 */
export const API_ROLE: { env: Record<string, string>; nodeArgs: string[] } = (() => {
  const scripts = JSON.parse(fs.readFileSync(path.join(WEB_DIR, "package.json"), "utf8")).scripts;
  const script: string = scripts["start:api"] ?? "";
  const shape = /^((?:\w+=\S+ )*)exec node ((?:--\S+ )*)dist\/server\.js$/.exec(script);
  if (!shape) throw new Error(`unexpected start:api script: ${script}`);
  const pairs = (shape[1] ?? "").split(" ").filter(Boolean);
  return {
    env: Object.fromEntries(pairs.map((pair) => pair.split("=", 2) as [string, string])),
    nodeArgs: (shape[2] ?? "").split(" ").filter(Boolean),
  };
})();

/**
 * Runs `npm run build` in apps/web unless `.next/BUILD_ID` and the server bundle exist. When another build is running
 * (Next refuses a second one), waits up to `waitMs` for its BUILD_ID instead.
 * @returns whether this call built.
 */
export async function ensureBuild(
  log: (line: string) => void = () => {},
  waitMs = 600_000,
): Promise<boolean> {
  const built = () =>
    [BUILD_ID, path.join(WEB_DIR, SERVER_BUNDLE), path.join(PRODUCTION_FOLDER, "server.js")].every((file) =>
      fs.existsSync(file),
    );
  if (built()) return false;
  log(
    "no production build (.next/BUILD_ID, dist/server.js, dist/production/): running `npm run build` in apps/web ...",
  );
  const result = spawnSync("npm", ["run", "-s", "build"], {
    cwd: WEB_DIR,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (result.status === 0) return true;
  const output = `${result.stdout}\n${result.stderr}`;
  if (!/Another next build process is already running/.test(output)) {
    throw new Error(`next build failed (${result.status}):\n${output}`);
  }
  log("another `next build` is running: waiting for it ...");
  const deadline = Date.now() + waitMs;
  while (!built()) {
    if (Date.now() > deadline)
      throw new Error(`no .next/BUILD_ID after waiting ${waitMs} ms for another build`);
    await sleep(1_000);
  }
  return false;
}

/** A database with a runtime on it (`openTestDatabase`); `drop` closes the runtime and removes the database. */
export type PreparedDatabase = Pick<TestDatabase, "url" | "rt" | "drop">;

/** A temporary PostgreSQL database, migrated (a clone of the migrated template) and seeded with the reference data. */
export function prepareDatabase(prefix = "petstore_instances"): Promise<TestDatabase> {
  return openTestDatabase({ prefix });
}

export interface ProductionServer {
  baseUrl: string;
  port: number;
  /** The process started (`tsx`, which runs the server in a child of its own). */
  pid?: number;
  /** stdout and stderr so far. */
  output(): string;
  /** stdout alone so far (empty with `logFile`, which takes both). */
  stdout(): string;
  stop(): Promise<void>;
  /** The headers of the first answer the server gave (to the start-up GET /readyz, sent once it said it listens). */
  firstAnswerHeaders: Headers;
  /** Sends `signal` to the server process alone (not its group). */
  signal(signal: NodeJS.Signals): void;
  /** Sends `signal` to the whole process group of the process started, as supervisors do (`kill -- -PGID`). */
  signalGroup(signal: NodeJS.Signals): void;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** How to run something other than the server bundle: `args` after the script, and its "listening" line. */
export interface CommandOptions {
  args?: string[];
  /**
   * Printed once the port is open; `{port}` stands for the port. Default: server.ts's line, which is the `msg` of a
   * JSON log line in production (src/server/start-output.ts) and found there as well (not with LOG_LEVEL=silent,
   * which silences it there).
   */
  listening?: string;
  /**
   * Writes stdout and stderr straight to this file instead of piping them into this process (the benches: a
   * server's log lines must not cost the load generator's CPU, as they cost no client's in production).
   */
  logFile?: string;
  /**
   * Runs this script of apps/web through npm instead (`npm run -s -w @petstore/web <script>`, from the repository
   * root, as a supervisor runs it; `script`, `nodeArgs` and `cwd` are then unused): the process started is npm's.
   */
  npmScript?: string;
  /** The process's working directory (default apps/web). */
  cwd?: string;
  /** The Node binary to run the script with (default: this process's). */
  node?: string;
}

/**
 * Starts `node <script>` (default the server bundle, production mode; a `.ts` script runs through tsx) on `port`
 * with exactly `env` (plus PATH/HOME), and waits until GET /readyz answers (200 or 503: the process is up and its
 * runtime open).
 * @throws when the process exits or does not become ready within `timeoutMs`.
 */
export async function startProductionServer(
  port: number,
  env: Record<string, string>,
  timeoutMs = 90_000,
  script = SERVER_BUNDLE,
  nodeArgs: string[] = [],
  command: CommandOptions = {},
): Promise<ProductionServer> {
  let piped = "";
  let stdout = "";
  const logFd = command.logFile ? fs.openSync(command.logFile, "w") : undefined;
  const output = () => (command.logFile ? fs.readFileSync(command.logFile, "utf8") : piped);
  const args = [
    ...nodeArgs,
    ...(script.endsWith(".ts") ? ["--import", "tsx"] : []),
    script,
    ...(command.args ?? []),
  ];
  const listening = (command.listening ?? "Listening on port {port}").replace("{port}", String(port));
  const [file, argv, cwd] = command.npmScript
    ? ["npm", ["run", "-s", "-w", "@petstore/web", command.npmScript], path.resolve(WEB_DIR, "../..")]
    : [command.node ?? process.execPath, args, command.cwd ?? WEB_DIR];
  const child: ChildProcess = spawn(file, argv, {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: "warn",
      PORT: String(port),
      // A stop waits for nothing: the tests of the drain set it themselves.
      SHUTDOWN_DRAIN_MS: "0",
      ...env,
    },
    stdio: ["ignore", logFd ?? "pipe", logFd ?? "pipe"],
    // Own process group: stop() ends the server and whatever it started, and nothing else.
    detached: true,
  });
  if (logFd !== undefined) fs.closeSync(logFd); // the child holds its own copy
  child.stdout?.on("data", (chunk: Buffer) => {
    piped += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    piped += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let running = true;
  void exited.then(() => {
    running = false;
  });

  const stop = async () => {
    if (!running || child.pid === undefined) return;
    const group = -child.pid;
    try {
      process.kill(group, "SIGTERM");
    } catch {
      return;
    }
    const done = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
    if (!done) {
      try {
        process.kill(group, "SIGKILL");
      } catch {}
      await exited;
    }
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  let firstAnswerHeaders: Headers | undefined;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!running) throw new Error(`server on port ${port} exited early:\n${output()}`);
    // Until this process says it listens, an answer on the port would come from someone else.
    if (!output().includes(listening)) {
      await sleep(100);
      if (Date.now() <= deadline) continue;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server on port ${port} not ready within ${timeoutMs} ms:\n${output()}`);
    }
    const answer = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(
      () => undefined,
    );
    await answer?.body?.cancel();
    firstAnswerHeaders ??= answer?.headers;
    if (answer?.status === 200 || answer?.status === 503) break;
    await sleep(200);
  }
  return {
    baseUrl,
    port,
    pid: child.pid,
    output,
    stdout: () => stdout,
    stop,
    firstAnswerHeaders: firstAnswerHeaders ?? new Headers(),
    signal: (signal) => {
      if (running && child.pid !== undefined) process.kill(child.pid, signal);
    },
    signalGroup: (signal) => {
      if (running && child.pid !== undefined) process.kill(-child.pid, signal);
    },
    exited,
  };
}

/** The process ids whose parent is `pid` (from /proc: Linux only). */
export function childProcessesOf(pid: number | undefined): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 (ppid) follows the command name, which may hold spaces: read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/** True while process `pid` exists and is not a zombie (Linux /proc). */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return false;
  }
}

/** The nice value of a process's main thread (field 19 of /proc/<pid>/stat). */
export function niceOf(pid: number | undefined): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[16]);
}

/** What a process run to its end left: its exit code (null when killed) and its output. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node <args>` in `cwd` with exactly `env` (plus PATH/HOME and NODE_ENV=production) until it exits, killing it
 * after `timeoutMs` (its code is then null).
 */
export async function runToExit(args: string[], cwd: string, env: Record<string, string>, timeoutMs: number) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  return { code, stdout, stderr } satisfies Finished;
}

/**
 * Runs the operator CLI (`petstore <args>`, apps/cli) with exactly `env` (plus PATH/HOME).
 * @returns exit code and output.
 */
export function runCli(args: string[], env: Record<string, string>): Promise<Finished> {
  return runToExit(
    [TSX_CLI, path.join(WEB_DIR, "../cli/src/main.ts"), ...args],
    path.join(WEB_DIR, "../cli"),
    { LOG_LEVEL: "error", ...env },
    120_000,
  );
}

/**
 * Runs the server bundle (`node <nodeArgs> dist/server.js`) with exactly `env` (plus PATH/HOME, LOG_LEVEL=warn) for
 * a start that is to fail, until it exits; killed after `timeoutMs` (code null: it kept running).
 */
export function runServerToExit(
  env: Record<string, string>,
  options: { nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<Finished> {
  return runToExit(
    [...(options.nodeArgs ?? []), SERVER_BUNDLE],
    WEB_DIR,
    { LOG_LEVEL: "warn", ...env },
    options.timeoutMs ?? 20_000,
  );
}
