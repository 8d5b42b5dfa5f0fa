/**
 * The dashboard process: Next.js alone, started and supervised by server.ts in the roles that serve the dashboard
 * (src/server/dashboard.ts; docs/architecture.md "One process, one runtime"). It listens on the private unix
 * socket it is given, serves the pages and Next's files to server.ts's proxy, and never opens the runtime: the
 * one thing its pages need from it, the signed-in user, they ask the parent for over the IPC channel
 * (parent-link.ts, next-child-protocol.ts). It tells the parent `{ type: "ready" }` once it listens, and exits when the channel
 * closes (the parent stopped it, or died). Stop signals sent to the process group are left to the parent,
 * which drains first and then closes the channel.
 * Usage (by dashboard.ts only): `node dist/dashboard-child.js --socket <path> --port <n> --nice <0-19> [--dev]`,
 * with an IPC channel.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { problems } from "@petstore/contracts";
import { appDirectory } from "../app-directory.ts";
import { writeErrorAnswer } from "../http/error-answer.ts";
import type { ReadyMessage } from "../next-child-protocol.ts";

/** How long an idle connection from server.ts is kept open (ms): four times the proxy's own idle bound. */
const KEEP_ALIVE_MS = 120_000;

/**
 * Lowers every thread of this process to nice `nice` (on Linux a nice value is per thread; threads started later
 * take their creator's, so the main thread's covers them). @returns the error message when the system refuses.
 */
function lowerPriority(nice: number): string | undefined {
  if (nice <= 0) return undefined;
  let threads = [String(process.pid)];
  try {
    threads = fs.readdirSync("/proc/self/task");
  } catch {
    // No /proc: the main thread only.
  }
  try {
    for (const tid of threads) os.setPriority(Number(tid), Math.max(os.getPriority(Number(tid)), nice));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A production start hands Next the configuration its build recorded (`config` of
 * `.next/required-server-files.json`) the way Next's standalone server does, through
 * `__NEXT_PRIVATE_STANDALONE_CONFIG`: the production folder has no next.config.mjs, Next then loads none of its
 * build tools, and it does not warn that the build's `output: "standalone"` is not `next start`'s. Without a
 * build Next reports that itself.
 */
function applyBuildConfig(dir: string): void {
  const recorded = path.join(dir, ".next", "required-server-files.json");
  if (!fs.existsSync(recorded)) return;
  const files = JSON.parse(fs.readFileSync(recorded, "utf8")) as { config: unknown };
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(files.config);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      socket: { type: "string" },
      port: { type: "string", default: "3000" },
      nice: { type: "string", default: "0" },
      dev: { type: "boolean", default: false },
    },
  });
  const send = process.send?.bind(process);
  if (!values.socket || !send) throw new Error("run by server.ts only (a socket and an IPC channel)");
  const socket = values.socket;
  // The parent stops this process after its drain, by closing the channel; so does the parent's death.
  process.on("disconnect", () => {
    // The socket's private folder (dashboard.ts made it for this process and its successors).
    fs.rmSync(path.dirname(socket), { recursive: true, force: true });
    process.exit(0);
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGQUIT"] as const) process.on(signal, () => {});
  const refused = lowerPriority(Number(values.nice));
  if (refused) process.stderr.write(`dashboard: could not lower CPU priority: ${refused}\n`);

  const dir = appDirectory(import.meta.dirname);
  if (!values.dev) applyBuildConfig(dir);
  const { default: next } = await import("next");
  let handle: ReturnType<ReturnType<typeof next>["getRequestHandler"]> | undefined;
  const server = http.createServer((req, res) => {
    handle?.(req, res).catch((thrown: unknown) => {
      process.stderr.write(`request failed: ${String(thrown)}\n`);
      if (res.headersSent) res.destroy();
      else writeErrorAnswer(res, problems.internalError(), req.headers);
    });
  });
  // Longer than the proxy's idle bound (http/dashboard-proxy.ts): server.ts always closes an idle connection first.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // `httpServer`: Next takes the websocket upgrades of hot reloading (development) from it.
  const app = next({
    dev: values.dev,
    dir,
    port: Number(values.port),
    hostname: "0.0.0.0",
    httpServer: server,
  });
  await app.prepare();
  handle = app.getRequestHandler();
  // A socket left by a predecessor that was killed would refuse the listen.
  fs.rmSync(socket, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, resolve);
  });
  send({ type: "ready" } satisfies ReadyMessage);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `dashboard could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
