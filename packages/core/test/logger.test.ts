/**
 * The process logger names the instance on every line (pid, hostname, INSTANCE_ID), and writes asynchronously,
 * yet loses no line when the process ends: on process.exit, on a SIGTERM answered with process.exit (as server.ts
 * does), on a crash by an uncaught exception, and when the close of stdout waits for a busy thread pool (no
 * periodic flush may then meet the closed destination and crash a clean stop).
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { loadConfig } from "@petstore/config";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";

// tsx as a loader of this one process: its CLI would run the script in a second process and relay signals to it,
// and a SIGTERM reaching the relay before the script's handler was reported to it ends both with 143.
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const CHILD = path.join(import.meta.dirname, "fixtures", "log-then-exit.ts");
const LINES = 20_000;

async function run(mode: "exit" | "sigterm" | "crash" | "slow-close") {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, CHILD, mode, String(LINES)], {
    env: {}, // nothing inherited: the child needs no configuration (node is started by its absolute path)
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let signalled = false;
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
    // Once: a second SIGTERM (on a later chunk of stderr) would meet the default action and end the child at once.
    if (mode === "sigterm" && !signalled && stderr.includes("ready")) {
      signalled = true;
      child.kill("SIGTERM");
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const lines = stdout.split("\n").filter(Boolean);
  return { code, lines, stderr };
}

describe("logger on process end", () => {
  // Three child processes, independent of each other: they run side by side.
  it.concurrent.each(["exit", "sigterm", "crash", "slow-close"] as const)(
    "keeps every line on %s",
    async (mode) => {
      const { code, lines, stderr } = await run(mode);
      expect(code).toBe(mode === "crash" ? 1 : 0);
      if (mode === "crash") expect(stderr).toContain("boom");
      expect(lines).toHaveLength(LINES);
      expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ i: LINES - 1, msg: "line" });
    },
  );
});

describe("logger lines", () => {
  it("carry pid and hostname, and INSTANCE_ID as instance when it is set", () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const named = loadConfig({ INSTANCE_ID: "api-2" });
    createLogger("info", sink, named.instanceId).info({ route: "/v1/pets" }, "request");
    createLogger("info", sink, loadConfig({}).instanceId).info("request");
    expect(lines[0]).toMatchObject({
      pid: process.pid,
      hostname: os.hostname(),
      instance: "api-2",
      route: "/v1/pets",
      msg: "request",
    });
    expect(lines[1]).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(lines[1]).not.toHaveProperty("instance");
    expect(() => loadConfig({ INSTANCE_ID: "api 2" })).toThrow(/INSTANCE_ID/);
  });
});
