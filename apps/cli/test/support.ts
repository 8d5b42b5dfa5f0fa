/**
 * Running the petstore command in tests: `petstore` calls `main` in this process (the usual way: a command
 * costs a runtime, not a Node start), `spawnPetstore` starts the real process (`node --import tsx src/main.ts`)
 * for the few end-to-end checks of the process entry itself.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable } from "node:stream";
import { ErrorBody } from "@petstore/contracts";
import { expect } from "vitest";
import { main } from "../src/cli.ts";

/** What one command run printed, and its exit code (null when a spawned process was killed). */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `petstore <args>` in this process with exactly the environment `env` (plus LOG_LEVEL=warn) and `input`
 * on stdin (none: empty).
 */
export async function petstore(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<CommandResult> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    env: { LOG_LEVEL: "warn", ...env },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    ...(input === undefined ? {} : { stdin: Readable.from([input]) }),
  });
  return { code, stdout, stderr };
}

const MAIN = path.join(import.meta.dirname, "../src/main.ts");
// By path, so the process may start in any folder (`--import tsx` would be resolved from its working directory).
const TSX = path.join(
  path.dirname(createRequire(import.meta.url).resolve("tsx/package.json")),
  "dist/loader.mjs",
);

/**
 * Runs `petstore <args>` as its own process (without blocking this one) in `cwd` (default: this package),
 * with PATH, HOME, LOG_LEVEL=warn and `env`, and `input` on stdin.
 */
export function spawnPetstore(
  args: string[],
  env: Record<string, string>,
  options: { input?: string; cwd?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/**
 * Runs `petstore <args>` as its own process, as `spawnPetstore` does, reading its stdout (a pipe) slowly: one
 * chunk per turn of this process's event loop, so that the pipe is full while the command finishes.
 */
export async function spawnPetstoreSlowly(
  args: string[],
  env: Record<string, string>,
): Promise<CommandResult> {
  const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) {
    chunks.push(chunk as Buffer);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { code: await exited, stdout: Buffer.concat(chunks).toString(), stderr };
}

/**
 * The Error body a `--json` failure printed: stdout must be exactly one line holding the same fields, types
 * and codes as the REST API's Error body (and @petstore/client's errors).
 */
export function errorBodyOf(result: CommandResult) {
  const lines = result.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  const body = JSON.parse(lines[0] as string);
  expect(ErrorBody.strict().parse(body)).toEqual(body);
  return body;
}
