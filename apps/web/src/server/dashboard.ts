/**
 * The dashboard host: Next.js, loaded only in the roles that serve the dashboard (`all`, `dashboard`), so an
 * API-only instance never carries it (docs/operations.md "Roles"). Next's code reaches the runtime through
 * runtime.ts, where server.ts handed it over before this starts.
 */
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import os from "node:os";
import path from "node:path";
import { translateError } from "@petstore/core/errors";
import { writeErrorAnswer } from "./http/error-answer.ts";

/** The Next app's folder (apps/web): the nearest folder holding next.config.mjs, from `start` upwards. */
export function appDirectory(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "next.config.mjs"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no next.config.mjs above ${start}`);
  }
}

/**
 * Lowers the scheduling priority of the calling thread (the event loop; on Linux a nice value is per thread) to
 * `nice` (0-19; 0 leaves it), so that on a host shared with API instances a busy dashboard yields the CPU to
 * `/v1` (docs/operations.md "Roles"). Raising a nice value needs no privilege. @returns the error message when
 * the system refuses, else undefined.
 */
export function yieldCpuToApi(nice: number): string | undefined {
  if (nice <= 0) return undefined;
  try {
    os.setPriority(Math.max(os.getPriority(), nice));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Prepares Next for `dir` (apps/web: see `appDirectory`) and returns its request listener; a request Next fails
 * on is answered with core's translated error as JSON.
 */
export async function startDashboard(options: {
  dir: string;
  dev: boolean;
  port: number;
}): Promise<(req: IncomingMessage, res: ServerResponse) => void> {
  const { default: next } = await import("next");
  const app = next({ dev: options.dev, dir: options.dir, port: options.port, hostname: "0.0.0.0" });
  await app.prepare();
  const handle = app.getRequestHandler();
  return (req, res) => {
    handle(req, res).catch((thrown: unknown) => {
      process.stderr.write(`request failed: ${String(thrown)}\n`);
      if (res.headersSent) res.destroy();
      else writeErrorAnswer(res, translateError(thrown).error, req.headers);
    });
  };
}
